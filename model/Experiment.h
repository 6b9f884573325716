// An experiment document (docs/ARCHITECTURE.md §5): data, model, training and view sections, saved
// as JSON with a formatVersion. Loading validates everything and names the key at fault. Plain
// value type; copied across threads, never shared mutably.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "model/ClassWeights.h"
#include "model/EarlyStopping.h"
#include "model/Loss.h"
#include "model/LrSchedule.h"
#include "model/Monitor.h"
#include "model/Optimizer.h"
#include "model/ValidationSettings.h"
#include "model/trading/TradingSettings.h"

namespace nnwb {

class ExperimentError : public std::runtime_error {
public:
    explicit ExperimentError(const std::string& what) : std::runtime_error(what) {}
};

// Version 2 added the best epoch, early stopping and learning-rate schedules to `training`;
// a version 1 file loads with the old behaviour (last epoch's weights, no early stopping,
// constant rate).
constexpr int kExperimentFormatVersion = 2;

struct TrainingConfig {
    OptimizerConfig optimizer;
    LossKind loss = LossKind::Mse;
    int batchSize = 64;
    int epochs = 10;
    uint64_t seed = 42;
    // Seeds trained as one ensemble (seed .. seed + ensemble - 1; docs/ensembles.md); 1: one
    // model.
    int ensemble = 1;
    std::string device = "cpu";
    bool shuffle = true;
    // The metric behind the best epoch, early stopping and the plateau schedule.
    Monitor monitor = Monitor::ValidationLoss;
    bool keepBest = true;  // the run's result is the best epoch's weights, not the last's
    EarlyStoppingConfig earlyStopping;
    LrScheduleConfig lrSchedule;
    // Gradient clipping: the global L2 norm over all parameters is scaled down to this when
    // above it; 0 is off (the norm is measured and reported either way).
    double clipNorm = 0.0;
    ClassWeightsConfig classWeights;
    // The precision of the float32 matrix products (compute/Backend.h MatmulPrecision):
    // "highest" (float32) or "high" (TF32 tensor cores where the device has them).
    std::string matmulPrecision = "highest";
    nlohmann::json toJson() const;
    // Reads a file's `training` section of `formatVersion`: version 1 ignores the later keys
    // and gives the old behaviour. Throws std::invalid_argument naming the key.
    static TrainingConfig fromJson(const nlohmann::json& j,
                                   int formatVersion = kExperimentFormatVersion);
    // What a version 1 file meant: keepBest off, early stopping off, constant rate.
    static TrainingConfig version1();
};

struct Experiment {
    static constexpr int kFormatVersion = kExperimentFormatVersion;
    // An experiment file larger than this is refused on loading: 16 MiB.
    static constexpr size_t kMaxFileBytes = size_t(16) << 20;
    std::string name = "untitled";
    nlohmann::json data = nlohmann::json::object();  // see DataConfig / SyntheticData
    nlohmann::json model = {{"layers", nlohmann::json::array()}};
    TrainingConfig training;
    // How the model's signals are traded when judged (docs/trading.md); a file without the
    // section gets the defaults.
    TradingSettings trading;
    // Holdout (the default, and what a file without the section means) or walk-forward. Saved
    // only when it differs from the default, so files without it stay as they were.
    ValidationConfig validation;
    nlohmann::json view = nlohmann::json::object();
    std::string baseDir = ".";  // folder of the file, for relative data paths

    nlohmann::json toJson() const;
    // The data section with its price file (if any) made absolute against baseDir: what
    // decides which data a run trains on, comparable between experiments wherever they live.
    nlohmann::json dataWithAbsoluteFile() const;
    // Validates sections and layer parameters; throws ExperimentError("training.epochs: ...").
    static Experiment fromJson(const nlohmann::json& j, const std::string& baseDir = ".");
    // Throws ExperimentError("PATH: problem") for unreadable, corrupt or invalid files.
    static Experiment load(const std::string& path);
    void save(const std::string& path) const;  // atomic
};

}  // namespace nnwb
