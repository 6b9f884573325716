#include "app/engine/WalkForward.h"

#include <array>

#include "model/TrainingSession.h"

namespace nnwb {

namespace {

// Passes a fold run's events on and keeps its epoch reports (the best epoch's figures).
struct FoldEvents : RunEvents {
    RunEvents& out;
    std::vector<EpochReport> reports;
    explicit FoldEvents(RunEvents& o) : out(o) {}
    void started(RunEngine& run) override { out.started(run); }
    void progress(const TrainingProgress& p) override { out.progress(p); }
    void epoch(const EpochReport& r) override {
        EpochReport kept = r;
        kept.validationOutputs.reset();
        reports.push_back(kept);
        out.epoch(r);
    }
    void betweenEpochs() override { out.betweenEpochs(); }
    void warning(const std::string& m) override { out.warning(m); }
};

FoldRecord plannedRecord(const WalkForwardData& data, const std::string& name, size_t k) {
    FoldRecord r;
    r.index = k;
    r.folds = data.plan.folds.size();
    r.fold = data.plan.folds[k];
    r.name = foldRunName(name, k, r.folds);
    const std::vector<int64_t>& t = data.bars->time;
    r.trainFrom = t[r.fold.trainFirst];
    r.trainTo = t[r.fold.trainLast];
    r.hasValidation = r.fold.hasValidation();
    if (r.hasValidation) {
        r.validationFrom = t[r.fold.validationFirst];
        r.validationTo = t[r.fold.validationLast];
    }
    r.testFrom = t[r.fold.testFirst];
    r.testTo = t[r.fold.testLast];
    return r;
}

std::string prefix(const FoldRecord& r) {
    return "fold " + std::to_string(r.index + 1) + "/" + std::to_string(r.folds) + ": ";
}

}  // namespace

std::string foldRunName(const std::string& name, size_t index, size_t folds) {
    return name + " fold " + std::to_string(index + 1) + "/" + std::to_string(folds);
}

WalkForward::WalkForward(const Experiment& e) : experiment_(e), data_(loadWalkForwardData(e)) {
    if (!data_.ok) throw DataLoadError(data_.error);
}

FoldRecord WalkForward::plannedRecord(size_t k, const std::string& name) const {
    FoldRecord r = nnwb::plannedRecord(data_, experiment_.name, k);
    if (!name.empty()) r.name = foldRunName(name, k, r.folds);
    return r;
}

FoldOutcome WalkForward::runFold(size_t k, const RecordingOptions& recording,
                                 WalkForwardEvents& events, TrainControl* control) {
    FoldOutcome out;
    FoldRecord& record = out.record;
    record = plannedRecord(k, recording.name);
    FoldData fold = loadFoldData(data_, k);
    if (!fold.data->ok) throw DataLoadError(prefix(record) + fold.data->error);
    events.foldStarted(record);
    RunEngine engine(experiment_, fold.data);
    RecordingOptions rec = recording;
    rec.name = record.name;
    const std::string where = "walk-forward " + prefix(record) + "test bars " +
                              std::to_string(record.fold.testFirst) + ".." +
                              std::to_string(record.fold.testLast);
    rec.note = rec.note.empty() ? where : rec.note + "\n" + where;
    FoldEvents foldEvents(events);
    const RunResult run =
        engine.train(experiment_.training.epochs, StartMode::Restart, rec, foldEvents, control);
    record.runId = engine.recordedRunId();
    record.epochs = static_cast<int>(foldEvents.reports.size());
    record.stoppedEarly = run.stoppedEarly;
    if (run.end != RunEnd::Completed) {
        record.end = run.end;
        record.error = run.error;
        events.foldEnded(record);
        return out;
    }
    const WeightsSnapshot& weights = engine.keeper().result();
    try {
        if (!weights.empty()) weights.restore(engine.network());
        record.test = engine.trainer().evaluate(fold.test, nullptr, &out.outputs);
        if (data_.isCpcv()) out.groupTest = testGroupMetrics(engine.trainer(), fold.test, k);
    } catch (const std::exception& e) {
        record.end = RunEnd::Failed;
        record.error = std::string("testing: ") + e.what();
        out.outputs.clear();
        events.foldEnded(record);
        return out;
    }
    record.bestEpoch = weights.empty() ? record.epochs : weights.epoch();
    for (const EpochReport& r : foldEvents.reports)
        if (r.epoch == record.bestEpoch) {
            record.train = r.train;
            record.validation = r.validation;
        }
    out.targets = fold.test.y;
    out.testFirstBar = fold.testFirstBar;
    events.foldEnded(record);
    return out;
}

WalkForwardResult WalkForward::stitch(const std::vector<FoldOutcome>& outcomes) {
    WalkForwardResult result;
    MetricsAccumulator stitched(3);
    double lossSum = 0.0;
    for (const FoldOutcome& o : outcomes) {
        const FoldRecord& record = o.record;
        result.folds.push_back(record);
        if (record.end != RunEnd::Completed) {
            result.end = record.end;
            if (record.end == RunEnd::Failed) result.error = prefix(record) + record.error;
            break;
        }
        // The fold's test predictions, in bar order after the previous fold's.
        const size_t n = o.outputs.size() / 3;
        stitched.add(o.outputs.data(), o.targets.data(), nullptr, n);
        lossSum += record.test.loss * static_cast<double>(n);
        for (size_t s = 0; s < n; ++s) {
            std::array<float, 3> out{o.outputs[3 * s], o.outputs[3 * s + 1], o.outputs[3 * s + 2]};
            int signal = 0;  // argmax, ties to the first, as the metrics count it
            for (int c = 1; c < 3; ++c)
                if (out[size_t(c)] > out[size_t(signal)]) signal = c;
            result.outOfSample.add(o.testFirstBar + s, out, signal);
        }
    }
    result.stitched = stitched.result();
    if (result.stitched.samples > 0)
        result.stitched.loss = lossSum / static_cast<double>(result.stitched.samples);
    return result;
}

std::vector<EpochMetrics> WalkForward::testGroupMetrics(Trainer& trainer, const SampleSet& test,
                                                        size_t k) const {
    std::vector<EpochMetrics> out;
    const CpcvSplit& split = data_.cpcv.splits.at(k);
    const size_t per = test.inputShape.size(), outputs = size_t(test.outputs);
    size_t from = 0;
    for (const BarRange& g : split.test) {
        SampleSet part;
        part.inputShape = test.inputShape;
        part.outputs = test.outputs;
        part.x.assign(test.x.begin() + long(from * per),
                      test.x.begin() + long((from + g.size()) * per));
        part.y.assign(test.y.begin() + long(from * outputs),
                      test.y.begin() + long((from + g.size()) * outputs));
        out.push_back(trainer.evaluate(part));
        from += g.size();
    }
    return out;
}

WalkForwardResult WalkForward::run(const RecordingOptions& recording, WalkForwardEvents& events,
                                   TrainControl* control) {
    if (data_.isCpcv()) {  // its test groups are not one window: app/engine/Cpcv.h stitches them
        WalkForwardResult r;
        r.end = RunEnd::Failed;
        r.error =
            "validation.scheme: cpcv splits are stitched into paths by nnwb-cli walkforward "
            "(app/engine/Cpcv.h), not run as one walk-forward here";
        return r;
    }
    std::vector<FoldOutcome> outcomes;
    bool stopped = false;
    for (size_t k = 0; k < data_.plan.folds.size(); ++k) {
        if (control && control->stopRequested()) {
            stopped = true;
            break;
        }
        outcomes.push_back(runFold(k, recording, events, control));
        if (outcomes.back().record.end != RunEnd::Completed) break;
    }
    WalkForwardResult result = stitch(outcomes);
    if (stopped) result.end = RunEnd::Stopped;
    return result;
}

}  // namespace nnwb
