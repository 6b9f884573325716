// `nnwb-cli train --trial` with several experiments (TrialProtocol.h): a packed sweep trial,
// the members trained as one population on the run engine, unrecorded. Every line carries the
// member's index; after each epoch one answer line per round (continue / prune / stop per
// member); each member ends with its own "result" (when it has trading figures) and "end".
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/Commands.h"
#include "app/cli/RunErrors.h"
#include "app/cli/TrialProtocol.h"
#include "app/compare/EpochReportJson.h"
#include "app/engine/RunTrading.h"
#include "app/runs/StoredRun.h"
#include "model/ModelBundle.h"

namespace nnwb::cli {

namespace {

void printPackedLine(const nlohmann::json& j) {
    std::printf("%s\n", j.dump().c_str());
    std::fflush(stdout);
}

// One line of `in` however long (without its end of line); false at the end of input.
bool readAnswerLine(std::FILE* in, std::string& line) {
    line.clear();
    char buf[256];
    bool any = false;
    while (std::fgets(buf, sizeof buf, in)) {
        any = true;
        line += buf;
        if (!line.empty() && line.back() == '\n') break;
    }
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r' || line.back() == ' '))
        line.pop_back();
    return any;
}

}  // namespace

void PopulationTrialEvents::started(RunEngine& run) {
    run_ = &run;
    pruned_.assign(size_t(run.models()), 0);
    const nlohmann::json shared = trialStartedJson(run);
    for (int m = 0; m < run.models(); ++m) {
        nlohmann::json j = {{"event", "started"}, {"member", m}};
        j.update(shared);
        j["seed"] = run.experimentOf(m).training.seed;
        printPackedLine(j);
    }
}

void PopulationTrialEvents::epoch(const EpochReport& report) {
    nlohmann::json j = epochReportToJson(report, hasValidation_);
    j["event"] = "epoch";
    j["member"] = report.model;
    printPackedLine(j);
}

void PopulationTrialEvents::answer(int member, const std::string& word) {
    if (word == "continue") return;
    if (word == "prune") pruned_[size_t(member)] = 1;
    run_->stopMember(member);  // "prune", "stop" or anything else
}

void PopulationTrialEvents::betweenEpochs() {
    std::vector<int> open;
    for (int m = 0; m < run_->models(); ++m)
        if (run_->memberOpen(m)) open.push_back(m);
    printPackedLine(
        {{"event", "answer"}, {"epoch", run_->trainer().epochsDone()}, {"members", open}});
    std::string line;
    if (!readAnswerLine(in_, line)) {  // the coordinator is gone: every member stops
        control_.requestStop();
        return;
    }
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(line);
    } catch (const std::exception&) {
        j = line;  // one word for every member
    }
    for (int m : open) {
        std::string word = "stop";
        if (j.is_string()) {
            word = j.get<std::string>();
        } else if (j.is_object()) {
            const auto it = j.find(std::to_string(m));
            word = it == j.end() ? "continue" : it->is_string() ? it->get<std::string>() : "stop";
        }
        answer(m, word);
    }
}

void PopulationTrialEvents::warning(const std::string& message) {
    std::fprintf(stderr, "nnwb-cli train: warning: %s\n", message.c_str());
}

int PopulationTrialEvents::end(const RunEngine& run, const std::vector<int>& modelEpochs) {
    std::vector<RunOutcome> outcomes;
    // A stop of the whole run (the end of input) ends the members before started() when
    // nothing trained; pruned_ is empty then.
    for (int m = 0; m < run.models(); ++m) {
        const RunResult& r = run.resultOf(m);
        const bool wasPruned = size_t(m) < pruned_.size() && pruned_[size_t(m)];
        outcomes.push_back({r.end, r.stoppedEarly, wasPruned});
        nlohmann::json j = {
            {"event", "end"}, {"member", m}, {"status", trialEndWord(outcomes.back())}};
        if (r.end == RunEnd::Failed) j["error"] = r.error;
        if (modelEpochs[size_t(m)] > 0) j["modelEpoch"] = modelEpochs[size_t(m)];
        printPackedLine(j);
    }
    return trialExitStatus(outcomes);
}

int runTrialPopulation(const std::vector<Experiment>& members,
                       const std::vector<std::string>& saveModels,
                       const std::vector<std::string>& saveWeights) {
    for (const Experiment& e : members)
        if (e.validation.walkForward())
            throw UsageError("--experiment: a walk-forward experiment is not packed (" + e.name +
                             ")");
    auto run = asUsageErrors([&] { return std::make_unique<RunEngine>(members); });
    const ExperimentData& data = run->data();
    for (const std::string& w : data.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    if (!saveModels.empty() && !data.priceData)
        throw UsageError(
            "--save-model: a model bundle needs a price file; the trials train on "
            "synthetic data (use --save-weights)");
    TrainControl control;
    PopulationTrialEvents events(control, data.split.validation.size() > 0);
    const Experiment& base = members.front();
    run->train(base.training.epochs, StartMode::Restart, RecordingOptions::none(), events,
               &control);
    const int n = run->models();
    std::vector<int> modelEpochs(size_t(n), 0);
    std::vector<const EpochKeeper*> keepers;
    bool trade = false;
    for (int m = 0; m < n; ++m) {
        const WeightsSnapshot& kept = run->keeperOf(m).result();
        keepers.push_back(&run->keeperOf(m));
        trade = trade || run->resultOf(m).end != RunEnd::Failed;
        if (kept.empty() || !run->hasCompute()) continue;
        const Experiment& e = run->experimentOf(m);
        if (size_t(m) < saveModels.size())
            makeModelBundle(e, data, kept.tensors(), run->network().toJson(), kept.epoch())
                .save(saveModels[size_t(m)]);
        if (size_t(m) < saveWeights.size()) kept.save(saveWeights[size_t(m)]);
        if (size_t(m) < saveModels.size() || size_t(m) < saveWeights.size())
            modelEpochs[size_t(m)] = kept.epoch();
    }
    // The end-of-trial figures of every member not failed, from one evaluation pass with each
    // member's best epoch on, as a recorded population's runs store them.
    if (trade && run->hasCompute()) {
        const std::vector<nlohmann::json> trading =
            validationTradingAll(run->network(), run->trainer(), keepers, data, base.trading);
        for (int m = 0; m < n; ++m) {
            if (run->resultOf(m).end == RunEnd::Failed || trading[size_t(m)].is_null()) continue;
            printPackedLine({{"event", "result"}, {"member", m}, {"trading", trading[size_t(m)]}});
        }
    }
    return events.end(*run, modelEpochs);
}

}  // namespace nnwb::cli
