// The training-control flags of `nnwb-cli train` (best epoch, early stopping, learning-rate
// schedule): each overrides one key of the experiment's training section and is checked as
// the experiment file is. Runs on the CLI's main thread; Qt-free.
#pragma once

#include <nlohmann/json.hpp>

#include "app/cli/Commands.h"
#include "model/Experiment.h"

namespace nnwb::cli {

// If args[i] is one of these flags, writes its value into `overrides` (the training section's
// JSON form), advances i past the value and returns true.
bool readTrainingFlag(const Args& args, size_t& i, nlohmann::json& overrides);
// `config` with `overrides` merged in, checked as a version 2 file; UsageError on a bad value.
TrainingConfig applyTrainingFlags(const TrainingConfig& config, const nlohmann::json& overrides);
// One line per flag for the usage text.
extern const char* const kTrainingFlagsUsage;

}  // namespace nnwb::cli
