// JSON form of per-epoch figures (EpochMetrics, EpochReport), shared by `nnwb-cli train
// --json` and the run histories of comparison sets. Pure functions; any thread. Qt-free.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "model/Trainer.h"

namespace nnwb {

// {"samples","loss"} plus, when `task`, "accuracy","missed","signals","patterns","confusion".
nlohmann::json metricsToJson(const EpochMetrics& m, bool task);
// The inverse of metricsToJson; throws std::invalid_argument naming `where` and the key.
EpochMetrics metricsFromJson(const nlohmann::json& j, const std::string& where);
// {"epoch","seconds","samplesPerSecond","taskMetrics","learningRate","bestEpoch","best",
// "gradNorm"{"max","mean"},"train"{…}} plus "validation"{…} when `hasValidation` and
// "stoppedEarly": true on the epoch after which early stopping ended the run.
nlohmann::json epochReportToJson(const EpochReport& r, bool hasValidation);
// The inverse of epochReportToJson; throws std::invalid_argument naming the key at fault.
EpochReport epochReportFromJson(const nlohmann::json& j);

}  // namespace nnwb
