// An experiment document (DESIGN.md §5): data, model, training and view sections, saved as
// JSON with a formatVersion. Loading validates everything and names the key at fault.
// Plain value type; copied across threads, never shared mutably.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "model/Loss.h"
#include "model/Optimizer.h"

namespace nnwb {

class ExperimentError : public std::runtime_error {
public:
    explicit ExperimentError(const std::string& what) : std::runtime_error(what) {}
};

struct TrainingConfig {
    OptimizerConfig optimizer;
    LossKind loss = LossKind::Mse;
    int batchSize = 64;
    int epochs = 10;
    uint64_t seed = 42;
    std::string device = "cpu";
    bool shuffle = true;
    nlohmann::json toJson() const;
    static TrainingConfig fromJson(const nlohmann::json& j);  // throws std::invalid_argument
};

struct Experiment {
    static constexpr int kFormatVersion = 1;
    std::string name = "untitled";
    nlohmann::json data = nlohmann::json::object();   // see DataConfig / SyntheticData
    nlohmann::json model = {{"layers", nlohmann::json::array()}};
    TrainingConfig training;
    nlohmann::json view = nlohmann::json::object();
    std::string baseDir = ".";  // folder of the file, for relative data paths

    nlohmann::json toJson() const;
    // Validates sections and layer parameters; throws ExperimentError("training.epochs: ...").
    static Experiment fromJson(const nlohmann::json& j, const std::string& baseDir = ".");
    // Throws ExperimentError("PATH: problem") for unreadable, corrupt or invalid files.
    static Experiment load(const std::string& path);
    void save(const std::string& path) const;  // atomic
};

}  // namespace nnwb
