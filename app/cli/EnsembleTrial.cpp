#include "app/cli/EnsembleTrial.h"

#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "app/cli/Commands.h"
#include "app/cli/EnsembleTrain.h"
#include "app/cli/RunErrors.h"
#include "app/cli/TrialProtocol.h"
#include "app/engine/RunOutcome.h"
#include "app/ensemble/EnsembleRecord.h"
#include "app/trial/TrialEmitter.h"
#include "model/Monitor.h"
#include "model/PopulationSpec.h"

namespace nnwb::cli {

namespace {

// The trial's lines: the members' reports of an epoch are gathered, then the ensemble's epoch
// is printed with them (before the answer is read, and after the last epoch by flush()).
class EnsembleTrialEvents : public RunEvents {
public:
    EnsembleTrialEvents(RunEngine& run, EnsembleCurve& curve)
        : run_(run),
          curve_(curve),
          emitter_(false),
          hasValidation_(run.data().split.validation.size() > 0),
          monitor_(run.keeper().monitor()) {}

    void started(RunEngine& run) override {
        trial::Line l;
        l.kind = trial::LineKind::Started;
        l.started = trialStartedJson(run);
        nlohmann::json seeds = nlohmann::json::array();
        for (int m = 0; m < run.models(); ++m) seeds.push_back(run.experimentOf(m).training.seed);
        l.started["ensemble"] = seeds;
        l.started["parameters"] = run.network().parameterCount() * size_t(run.models());
        emitter_.write(l);
    }
    void epoch(const EpochReport& report) override {
        curve_.add(report);
        members_.push_back(report);
        members_.back().validationOutputs.reset();
    }
    void betweenEpochs() override {
        flush(false);
        std::vector<int> open;
        for (int m = 0; m < run_.models(); ++m)
            if (run_.memberOpen(m)) open.push_back(m);
        const auto answers = emitter_.ask(run_.trainer().epochsDone(), {0});
        const trial::Answer a = answers ? answers->front() : trial::Answer::Stop;
        if (a == trial::Answer::Continue) return;
        pruned_ = a == trial::Answer::Prune;
        stopped_ = true;
        for (int m : open) run_.stopMember(m);  // the whole ensemble ends
    }
    void warning(const std::string& message) override {
        std::fprintf(stderr, "nnwb-cli train: warning: %s\n", message.c_str());
    }
    // Prints the ensemble's epoch of the reports gathered (`last`: the run has ended, so an
    // epoch before the last wanted one ended by early stopping).
    void flush(bool last) {
        if (members_.empty()) return;
        trial::Line l;
        l.kind = trial::LineKind::Epoch;
        l.epoch = curve_.epochs().back();
        l.hasValidation = hasValidation_;
        const double v = monitorValue(monitor_, l.epoch.train, l.epoch.validation);
        if (bestEpoch_ == 0 || (higherIsBetter(monitor_) ? v > best_ : v < best_)) {
            best_ = v;
            bestEpoch_ = l.epoch.epoch;
            l.epoch.isBest = true;
        }
        l.epoch.bestEpoch = bestEpoch_;
        l.epoch.stoppedEarly = last && !stopped_ && l.epoch.epoch < run_.epochsWanted();
        l.members = members_;
        members_.clear();
        emitter_.write(l);
    }
    // The ensemble's end: failed when a member failed, else pruned or stopped when an answer
    // ended it, else completed (stopped early when every member did).
    RunOutcome outcome(std::string& error) const {
        RunOutcome o;
        o.stoppedEarly = true;
        for (int m = 0; m < run_.models(); ++m) {
            const RunResult& r = run_.resultOf(m);
            if (r.end == RunEnd::Failed && o.end != RunEnd::Failed) {
                o.end = RunEnd::Failed;
                error = "member " + std::to_string(m + 1) + ": " + r.error;
            }
            o.stoppedEarly = o.stoppedEarly && r.stoppedEarly;
        }
        if (o.end != RunEnd::Failed && stopped_) {
            o.end = RunEnd::Stopped;
            o.pruned = pruned_;
        }
        if (o.end != RunEnd::Completed) o.stoppedEarly = false;
        return o;
    }
    void end(const RunOutcome& o, const std::string& error, int modelEpoch) {
        trial::Line l;
        l.kind = trial::LineKind::End;
        l.end.status = trialEndWord(o);
        l.end.error = error;
        l.end.modelEpoch = modelEpoch;
        emitter_.write(l);
    }

private:
    RunEngine& run_;
    EnsembleCurve& curve_;
    trial::TrialEmitter emitter_;
    bool hasValidation_;
    Monitor monitor_;
    std::vector<EpochReport> members_;  // of the epoch being gathered
    int bestEpoch_ = 0;
    double best_ = 0.0;
    bool stopped_ = false, pruned_ = false;
};

}  // namespace

int runTrialEnsemble(const Experiment& base, int members, const std::vector<std::string>& vary,
                     const std::string& saveModel) {
    std::vector<Experiment> list;
    try {
        list = populationMembers(base, members, vary);
    } catch (const PopulationSpecError& e) {
        throw UsageError(e.what());
    }
    auto run = asUsageErrors([&] { return std::make_unique<RunEngine>(list); });
    const ExperimentData& data = run->data();
    for (const std::string& w : data.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    if (!data.priceData)
        throw UsageError(
            "--ensemble: an ensemble bundle needs a price file; the trial trains on synthetic "
            "data");
    run->trainer().setKeepValidationOutputs(true);
    EnsembleCurve curve(size_t(members), data.split.validation, base.training.loss);
    EnsembleTrialEvents events(*run, curve);
    TrainControl control;
    run->train(base.training.epochs, StartMode::Restart, RecordingOptions::none(), events,
               &control);
    events.flush(true);
    std::string error;
    const RunOutcome outcome = events.outcome(error);
    int modelEpoch = 0;
    bool kept = outcome.end != RunEnd::Failed;
    for (int m = 0; m < run->models(); ++m) kept = kept && !run->keeperOf(m).result().empty();
    if (kept) {
        const KeptEnsemble k = keepTrialEnsemble(*run, saveModel, base.name);
        modelEpoch = k.bundle.common.epoch;
        if (!k.trading.is_null()) printTrialResult(k.trading);
    }
    events.end(outcome, error, modelEpoch);
    return trialExitStatus({outcome});
}

}  // namespace nnwb::cli
