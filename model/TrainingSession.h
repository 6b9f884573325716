// One training run's compute objects, built from an experiment: its data (loaded here, or a
// split shared read-only by several runs), the backend for training.device, the network and
// the Trainer. Create, use and destroy it on one thread: the one that owns the backend (a
// training worker, a comparison run thread, the CLI).
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "compute/Backend.h"
#include "model/Experiment.h"
#include "model/ExperimentData.h"
#include "model/Network.h"
#include "model/Trainer.h"

namespace nnwb {

// The experiment's data could not be loaded; the message is loadExperimentData's error.
class DataLoadError : public std::runtime_error {
public:
    explicit DataLoadError(const std::string& what) : std::runtime_error(what) {}
};

class TrainingSession {
public:
    // Loads the data unless `data` is given, creates the backend unless `backend` is given (a
    // sweep's kept worker passes the one of its trials before, for training.device), checks
    // that the run fits the device's memory and builds the network and trainer. Throws
    // DataLoadError (data), ComputeError (device, or too large for it), ShapeError (model) or
    // TrainingError.
    explicit TrainingSession(const Experiment& experiment,
                             std::shared_ptr<const ExperimentData> data = nullptr,
                             std::shared_ptr<Backend> backend = nullptr);
    // A population (docs/decisions/population.md): one network of members.size() models
    // trained together; the data, model and device are the first member's. Throws
    // TrainingError when populationRefusal refuses the members.
    explicit TrainingSession(const std::vector<Experiment>& members,
                             std::shared_ptr<const ExperimentData> data = nullptr,
                             std::shared_ptr<Backend> backend = nullptr);
    TrainingSession(const TrainingSession&) = delete;
    TrainingSession& operator=(const TrainingSession&) = delete;

    const ExperimentData& data() const { return *data_; }
    std::shared_ptr<const ExperimentData> sharedData() const { return data_; }
    const DataSplit& split() const { return data_->split; }
    Backend& backend() { return *backend_; }
    Network& network() { return *network_; }
    Trainer& trainer() { return *trainer_; }
    // The precision the products run at (training.matmulPrecision as the device allows), and
    // when `high` was asked for but runs as float32, a line saying so ("" otherwise).
    MatmulPrecision matmulPrecision() const { return precision_; }
    const std::string& matmulPrecisionNote() const { return precisionNote_; }

private:
    void applyMatmulPrecision(const TrainingConfig& training);

    MatmulPrecision precision_ = MatmulPrecision::Highest;
    std::string precisionNote_;
    std::shared_ptr<const ExperimentData> data_;
    std::shared_ptr<Backend> backend_;  // shared with a kept worker's next trials
    std::unique_ptr<Network> network_;
    std::unique_ptr<Trainer> trainer_;  // declared last: destroyed first
};

}  // namespace nnwb
