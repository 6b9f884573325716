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

WalkForwardResult WalkForward::run(const RecordingOptions& recording, WalkForwardEvents& events,
                                   TrainControl* control) {
    WalkForwardResult result;
    MetricsAccumulator stitched(3);
    double lossSum = 0.0;
    for (size_t k = 0; k < data_.plan.folds.size(); ++k) {
        FoldRecord record = plannedRecord(data_, experiment_.name, k);
        if (!recording.name.empty()) record.name = foldRunName(recording.name, k, record.folds);
        if (control && control->stopRequested()) {
            result.end = RunEnd::Stopped;
            break;
        }
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
            result.end = run.end;
            if (run.end == RunEnd::Failed) result.error = prefix(record) + run.error;
            result.folds.push_back(record);
            events.foldEnded(record);
            break;
        }
        const WeightsSnapshot& weights = engine.keeper().result();
        std::vector<float> outputs;
        try {
            if (!weights.empty()) weights.restore(engine.network());
            record.test = engine.trainer().evaluate(fold.test, nullptr, &outputs);
        } catch (const std::exception& e) {
            record.end = RunEnd::Failed;
            record.error = std::string("testing: ") + e.what();
            result.end = RunEnd::Failed;
            result.error = prefix(record) + record.error;
            result.folds.push_back(record);
            events.foldEnded(record);
            break;
        }
        record.bestEpoch = weights.empty() ? record.epochs : weights.epoch();
        for (const EpochReport& r : foldEvents.reports)
            if (r.epoch == record.bestEpoch) {
                record.train = r.train;
                record.validation = r.validation;
            }
        // Stitch: the fold's test predictions, in bar order after the previous fold's.
        const SampleSet& test = fold.test;
        stitched.add(outputs.data(), test.y.data(), nullptr, test.size());
        lossSum += record.test.loss * static_cast<double>(test.size());
        for (size_t s = 0; s < test.size(); ++s) {
            std::array<float, 3> out{outputs[3 * s], outputs[3 * s + 1], outputs[3 * s + 2]};
            int signal = 0;  // argmax, ties to the first, as the metrics count it
            for (int c = 1; c < 3; ++c)
                if (out[size_t(c)] > out[size_t(signal)]) signal = c;
            result.outOfSample.add(fold.testFirstBar + s, out, signal);
        }
        result.folds.push_back(record);
        events.foldEnded(record);
    }
    result.stitched = stitched.result();
    if (result.stitched.samples > 0)
        result.stitched.loss = lossSum / static_cast<double>(result.stitched.samples);
    return result;
}

}  // namespace nnwb
