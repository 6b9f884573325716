#include "model/TrainingSession.h"

#include "compute/BackendRegistry.h"
#include "model/MemoryCheck.h"
#include "model/PopulationCheck.h"

namespace nnwb {

TrainingSession::TrainingSession(const Experiment& experiment,
                                 std::shared_ptr<const ExperimentData> data,
                                 std::shared_ptr<Backend> backend)
    : TrainingSession(std::vector<Experiment>{experiment}, std::move(data), std::move(backend)) {}

TrainingSession::TrainingSession(const std::vector<Experiment>& members,
                                 std::shared_ptr<const ExperimentData> data,
                                 std::shared_ptr<Backend> backend)
    : data_(std::move(data)), backend_(std::move(backend)) {
    const std::string refusal = populationRefusal(members);
    if (!refusal.empty()) throw TrainingError(refusal);
    const Experiment& experiment = members.front();
    if (!data_) data_ = std::make_shared<const ExperimentData>(loadExperimentData(experiment));
    if (!data_->ok) throw DataLoadError(data_->error);
    if (!backend_) backend_ = createBackend(experiment.training.device);
    applyMatmulPrecision(experiment.training);
    network_ = std::make_unique<Network>(Network::layersFromJson(experiment.model),
                                         data_->split.train.inputShape);
    std::vector<TrainingConfig> configs;
    for (const Experiment& e : members) configs.push_back(e.training);
    // Refused before any device memory is taken when the run cannot fit (ComputeError).
    requireDeviceMemory(trainingMemoryNeed(experiment.model, configs, data_->split),
                        backend_->info(), experiment.training.batchSize);
    trainer_ = std::make_unique<Trainer>(*backend_, *network_, std::move(configs), data_->split);
}

void TrainingSession::applyMatmulPrecision(const TrainingConfig& training) {
    MatmulPrecision want = MatmulPrecision::Highest;
    if (!matmulPrecisionFromName(training.matmulPrecision, want))
        throw TrainingError("training.matmulPrecision: '" + training.matmulPrecision +
                            "' is not highest or high");
    // Highest leaves the backend as created (NNWB_MATMUL_PRECISION=high still applies there).
    if (want != MatmulPrecision::High) return;
    precision_ = backend_->setMatmulPrecision(want);
    if (precision_ != MatmulPrecision::High)
        precisionNote_ = "matmul precision high: " + backend_->info().id + " (" +
                         backend_->info().name +
                         ") has no TF32 tensor cores; the products run in float32 (highest)";
}

}  // namespace nnwb
