#include "app/ensemble/EnsembleWalkForward.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/ensemble/EnsembleKeep.h"
#include "app/ensemble/EnsembleRecord.h"
#include "model/FoldData.h"
#include "model/TrainingSession.h"
#include "model/data/Fractals.h"
#include "model/ensemble/EnsemblePrediction.h"

namespace nnwb {

namespace {

// Passes a fold's run events on (the members' epochs), feeds the ensemble's curve and hands
// each of the ensemble's own epochs to `onEnsembleEpoch` once its members have reported it.
struct FoldEvents : RunEvents {
    RunEvents& out;
    EnsembleEpochFeed& feed;
    const EnsembleEpochHandler& onEnsembleEpoch;
    int epochs = 0;
    FoldEvents(RunEvents& o, EnsembleEpochFeed& f, const EnsembleEpochHandler& h)
        : out(o), feed(f), onEnsembleEpoch(h) {}
    void started(RunEngine& run) override { out.started(run); }
    void progress(const TrainingProgress& p) override { out.progress(p); }
    void epoch(const EpochReport& r) override {
        feed.add(r);
        epochs = std::max(epochs, r.epoch);
        out.epoch(r);
    }
    void betweenEpochs() override {
        flush();
        out.betweenEpochs();
    }
    void warning(const std::string& m) override { out.warning(m); }
    void flush() {
        EpochReport e;
        if (feed.next(e) && onEnsembleEpoch) onEnsembleEpoch(e);
    }
};

// A fold's part as prediction inputs: its samples, their bars from `firstBar` on (clamped to
// the file), every sample labelled by its target.
PredictionInputs inputsOf(const SampleSet& set, size_t firstBar, size_t bars) {
    PredictionInputs in;
    in.samples = set;
    for (size_t s = 0; s < set.size(); ++s) {
        in.bar.push_back(std::min(firstBar + s, bars - 1));
        in.labelled.push_back(1);
        const float* t = set.target(s);
        in.label.push_back(
            uint8_t((t[1] > 0.5f ? kFractalBuy : 0) | (t[2] > 0.5f ? kFractalSell : 0)));
    }
    return in;
}

struct Predicted {
    std::vector<PredictionResult> members;
    PredictionResult combined;
};

Predicted predictPart(EnsemblePredictor& p, const SampleSet& set, size_t firstBar,
                      const BarSeries& bars) {
    Predicted out;
    if (set.size() == 0) return out;
    const PredictionInputs in = inputsOf(set, firstBar, bars.size());
    for (size_t m = 0; m < p.bundle().size(); ++m) out.members.push_back(p.member(m).run(in, bars));
    out.combined = combinePredictions(out.members, in, lossFromName(p.bundle().common.loss));
    return out;
}

FoldOutcome outcomeOf(const FoldRecord& record, const PredictionResult& test, const FoldData& f) {
    FoldOutcome o;
    o.record = record;
    o.record.test = test.metrics;
    for (const PredictionRow& row : test.rows)
        o.outputs.insert(o.outputs.end(), row.outputs.begin(), row.outputs.end());
    o.targets = f.test.y;
    o.testFirstBar = f.testFirstBar;
    return o;
}

struct FoldOutcomes {
    FoldOutcome ensemble;
    std::vector<FoldOutcome> members;
    std::vector<float> agreement;
};

// The trained population of fold `f` tested as an ensemble and member by member.
FoldOutcomes testFold(RunEngine& engine, const FoldData& f, FoldRecord record,
                      const RecordingOptions& rec, const EnsembleCurve& curve) {
    FoldOutcomes out;
    EnsembleBundle bundle = ensembleOf(engine);
    const BarSeries& bars = *f.data->bars;
    EnsemblePredictor p(bundle, engine.experiment().training.device);
    const Fold& fold = record.fold;
    const Predicted train = predictPart(p, f.data->split.train, fold.trainFirst, bars);
    const Predicted val = predictPart(p, f.data->split.validation, fold.validationFirst, bars);
    const Predicted test = predictPart(p, f.test, f.testFirstBar, bars);
    for (size_t m = 0; m < bundle.size(); ++m) {
        FoldRecord r = record;
        r.bestEpoch = bundle.members[m].epoch;
        r.train = train.members.empty() ? EpochMetrics{} : train.members[m].metrics;
        r.validation = val.members.empty() ? EpochMetrics{} : val.members[m].metrics;
        out.members.push_back(outcomeOf(r, test.members[m], f));
    }
    record.bestEpoch = bundle.common.epoch;
    record.train = train.combined.metrics;
    record.validation = val.combined.metrics;
    for (const PredictionRow& row : test.combined.rows) out.agreement.push_back(row.agreement);
    record.runId =
        recordEnsembleRun(
            engine, curve, rec, record.name, {"", bundle.common.epoch, nullptr},
            [](const std::string& w) { std::fprintf(stderr, "warning: %s\n", w.c_str()); })
            .id;
    out.ensemble = outcomeOf(record, test.combined, f);
    return out;
}

FoldOutcomes runFold(WalkForward& wf, size_t k, const std::vector<Experiment>& members,
                     const RecordingOptions& recording, WalkForwardEvents& events,
                     TrainControl* control, const EnsembleEpochHandler& onEnsembleEpoch) {
    FoldRecord record = wf.plannedRecord(k, recording.name);
    const std::string prefix =
        "fold " + std::to_string(k + 1) + "/" + std::to_string(record.folds) + ": ";
    FoldData fold = loadFoldData(wf.data(), k);
    if (!fold.data->ok) throw DataLoadError(prefix + fold.data->error);
    events.foldStarted(record);
    RunEngine engine(members, fold.data);
    engine.trainer().setKeepValidationOutputs(true);
    EnsembleCurve curve(members.size(), fold.data->split.validation, members.front().training.loss);
    RecordingOptions rec = recording;
    rec.name = record.name;
    const std::string where =
        "walk-forward " + prefix + "test bars " + std::to_string(record.fold.testFirst) + ".." +
        std::to_string(record.fold.testLast) + ", an ensemble of " + std::to_string(members.size());
    rec.note = rec.note.empty() ? where : rec.note + "\n" + where;
    EnsembleEpochFeed feed(curve, engine.keeper().monitor());
    FoldEvents foldEvents(events, feed, onEnsembleEpoch);
    const RunResult run =
        engine.train(members.front().training.epochs, StartMode::Restart, rec, foldEvents, control);
    foldEvents.flush();
    record.epochs = foldEvents.epochs;
    record.stoppedEarly = run.stoppedEarly;
    RunResult worst = run;
    for (int m = 0; m < engine.models(); ++m)
        if (engine.resultOf(m).end == RunEnd::Failed) worst = engine.resultOf(m);
    FoldOutcomes out;
    if (worst.end != RunEnd::Completed) {
        record.end = worst.end;
        record.error = worst.error;
        out.ensemble.record = record;
        out.members.assign(members.size(), out.ensemble);
        events.foldEnded(record);
        return out;
    }
    try {
        out = testFold(engine, fold, record, rec, curve);
    } catch (const std::exception& e) {
        record.end = RunEnd::Failed;
        record.error = std::string("testing: ") + e.what();
        out = FoldOutcomes{};
        out.ensemble.record = record;
        out.members.assign(members.size(), out.ensemble);
    }
    events.foldEnded(out.ensemble.record);
    return out;
}

}  // namespace

EnsembleWalkForwardResult runEnsembleFolds(WalkForward& wf, const std::vector<Experiment>& members,
                                           const RecordingOptions& recording,
                                           WalkForwardEvents& events, TrainControl* control,
                                           const EnsembleEpochHandler& onEnsembleEpoch) {
    std::vector<FoldOutcome> ensemble;
    std::vector<std::vector<FoldOutcome>> perMember(members.size());
    std::vector<float> agreement;
    for (size_t k = 0; k < wf.plan().folds.size(); ++k) {
        FoldOutcomes f = runFold(wf, k, members, recording, events, control, onEnsembleEpoch);
        const bool completed = f.ensemble.record.end == RunEnd::Completed;
        ensemble.push_back(std::move(f.ensemble));
        for (size_t m = 0; m < members.size(); ++m) perMember[m].push_back(f.members[m]);
        if (!completed) break;
        agreement.insert(agreement.end(), f.agreement.begin(), f.agreement.end());
    }
    EnsembleWalkForwardResult r;
    r.ensemble = WalkForward::stitch(ensemble);
    r.ensemble.outOfSample.agreement = agreement;
    if (r.ensemble.outOfSample.agreement.size() != r.ensemble.outOfSample.size())
        r.ensemble.outOfSample.agreement.clear();
    for (const auto& outcomes : perMember) r.members.push_back(WalkForward::stitch(outcomes));
    r.memberExperiments = members;
    return r;
}

}  // namespace nnwb
