// JSON form of per-epoch figures (EpochMetrics, EpochReport), shared by `nnwb-cli train
// --json` and the run histories of comparison sets. Pure functions; any thread. Qt-free.
#pragma once

#include <nlohmann/json.hpp>

#include "model/Trainer.h"

namespace nnwb {

// {"samples","loss"} plus, when `task`, "accuracy","missed","signals","patterns","confusion".
nlohmann::json metricsToJson(const EpochMetrics& m, bool task);
// {"epoch","seconds","samplesPerSecond","taskMetrics","learningRate","bestEpoch","best",
// "train"{…}} plus "validation"{…} when `hasValidation` and "stoppedEarly": true on the epoch
// after which early stopping ended the run.
nlohmann::json epochReportToJson(const EpochReport& r, bool hasValidation);
// The inverse of epochReportToJson; throws std::invalid_argument naming the key at fault.
EpochReport epochReportFromJson(const nlohmann::json& j);

}  // namespace nnwb
