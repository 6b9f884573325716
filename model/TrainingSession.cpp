#include "model/TrainingSession.h"

#include "compute/BackendRegistry.h"
#include "model/MemoryCheck.h"

namespace nnwb {

TrainingSession::TrainingSession(const Experiment& experiment,
                                 std::shared_ptr<const ExperimentData> data)
    : data_(std::move(data)) {
    if (!data_) data_ = std::make_shared<const ExperimentData>(loadExperimentData(experiment));
    if (!data_->ok) throw DataLoadError(data_->error);
    backend_ = createBackend(experiment.training.device);
    network_ = std::make_unique<Network>(Network::layersFromJson(experiment.model),
                                         data_->split.train.inputShape);
    // Refused before any device memory is taken when the run cannot fit (ComputeError).
    requireDeviceMemory(trainingMemoryNeed(experiment.model, experiment.training, data_->split),
                        backend_->info(), experiment.training.batchSize);
    trainer_ = std::make_unique<Trainer>(*backend_, *network_, experiment.training, data_->split);
}

}  // namespace nnwb
