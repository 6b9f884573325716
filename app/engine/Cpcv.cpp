#include "app/engine/Cpcv.h"

#include <array>

namespace nnwb {

std::vector<FoldOutcome> runCpcvSplits(WalkForward& wf, const RecordingOptions& recording,
                                       WalkForwardEvents& events, TrainControl* control) {
    std::vector<FoldOutcome> outcomes;
    for (size_t k = 0; k < wf.plan().folds.size(); ++k) {
        if (control && control->stopRequested()) {
            FoldOutcome stopped;
            stopped.record = wf.plannedRecord(k, recording.name);
            stopped.record.end = RunEnd::Stopped;
            outcomes.push_back(stopped);
            break;
        }
        outcomes.push_back(wf.runFold(k, recording, events, control));
        if (outcomes.back().record.end != RunEnd::Completed) break;
    }
    return outcomes;
}

namespace {

CpcvPath stitchPath(const CpcvPlan& plan, const std::vector<FoldOutcome>& outcomes, size_t p) {
    CpcvPath path;
    path.index = p;
    path.splits = plan.paths[p];
    MetricsAccumulator acc(3);
    double lossSum = 0.0;
    for (size_t g = 0; g < plan.groups; ++g) {
        const size_t s = plan.paths[p][g];
        const FoldOutcome& o = outcomes[s];
        const CpcvSplit& split = plan.splits[s];
        size_t position = 0;
        while (split.testGroups[position] != g) ++position;
        const size_t offset = plan.testOffset(s, g), n = plan.group[g].size();
        const float* y = o.outputs.data() + 3 * offset;
        acc.add(y, o.targets.data() + 3 * offset, nullptr, n);
        lossSum += o.groupTest.at(position).loss * double(n);
        for (size_t i = 0; i < n; ++i) {
            const std::array<float, 3> out{y[3 * i], y[3 * i + 1], y[3 * i + 2]};
            int signal = 0;  // argmax, ties to the first, as the metrics count it
            for (int c = 1; c < 3; ++c)
                if (out[size_t(c)] > out[size_t(signal)]) signal = c;
            path.outOfSample.add(plan.group[g].first + i, out, signal);
        }
    }
    path.metrics = acc.result();
    if (path.metrics.samples > 0) path.metrics.loss = lossSum / double(path.metrics.samples);
    return path;
}

}  // namespace

CpcvResult stitchCpcv(const CpcvPlan& plan, const std::vector<FoldOutcome>& outcomes) {
    CpcvResult result;
    for (const FoldOutcome& o : outcomes) {
        result.splits.push_back(o.record);
        if (o.record.end != RunEnd::Completed) {
            result.end = o.record.end;
            if (o.record.end == RunEnd::Failed)
                result.error = "fold " + std::to_string(o.record.index + 1) + "/" +
                               std::to_string(o.record.folds) + ": " + o.record.error;
            return result;
        }
    }
    if (outcomes.size() != plan.splits.size()) {
        result.end = RunEnd::Stopped;
        return result;
    }
    for (size_t p = 0; p < plan.paths.size(); ++p)
        result.paths.push_back(stitchPath(plan, outcomes, p));
    return result;
}

}  // namespace nnwb
