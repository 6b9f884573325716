// `nnwb-cli train --trial` with several experiments (TrialProtocol.h): a packed sweep trial,
// the members trained as one population on the run engine, unrecorded. Every line carries the
// member's index (TrialEvents, the one emitter of trial lines); after each epoch one answer line
// per round; each member ends with its own "result" (when it has trading figures) and "end".
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/Commands.h"
#include "app/cli/RunErrors.h"
#include "app/cli/TrialProtocol.h"
#include "app/cli/TrialWorker.h"
#include "app/runs/StoredRun.h"
#include "model/ModelBundle.h"

namespace nnwb::cli {

int runTrialPopulation(const std::vector<Experiment>& members,
                       const std::vector<std::string>& saveModels,
                       const std::vector<std::string>& saveWeights) {
    for (const Experiment& e : members)
        if (e.validation.walkForward())
            throw UsageError("--experiment: a walk-forward experiment is not packed (" + e.name +
                             ")");
    // In a sweep's kept worker, the data and backend of its trials before (TrialWorker.h).
    auto run = asUsageErrors([&] {
        return std::make_unique<RunEngine>(members, keptData(members.front()),
                                           keptBackend(members.front()));
    });
    const ExperimentData& data = run->data();
    for (const std::string& w : data.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    if (!saveModels.empty() && !data.priceData)
        throw UsageError(
            "--save-model: a model bundle needs a price file; the trials train on "
            "synthetic data (use --save-weights)");
    TrainControl control;
    TrialEvents events(control, data.split.validation.size() > 0, true);
    const Experiment& base = members.front();
    run->train(base.training.epochs, StartMode::Restart, RecordingOptions::none(), events,
               &control);
    const int n = run->models();
    std::vector<int> modelEpochs(size_t(n), 0);
    for (int m = 0; m < n; ++m) {
        const WeightsSnapshot& kept = run->keeperOf(m).result();
        if (kept.empty() || !run->hasCompute()) continue;
        if (size_t(m) < saveModels.size()) run->resultBundle(m).save(saveModels[size_t(m)]);
        if (size_t(m) < saveWeights.size()) kept.save(saveWeights[size_t(m)]);
        if (size_t(m) < saveModels.size() || size_t(m) < saveWeights.size())
            modelEpochs[size_t(m)] = kept.epoch();
    }
    // The end-of-trial figures of every member not failed: the engine's, from its one
    // evaluation pass at the end of train() with each member's best epoch on (RunEngine::finish).
    for (int m = 0; m < n; ++m)
        if (run->resultOf(m).end != RunEnd::Failed && !run->tradingWithReturns(m).is_null())
            events.result(run->tradingWithReturns(m), m);
    return events.end(*run, modelEpochs);
}

}  // namespace nnwb::cli
