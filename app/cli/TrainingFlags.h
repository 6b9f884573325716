// The training-control flags of `nnwb-cli train` (best epoch, early stopping, learning-rate
// schedule, clipping, class weights): each overrides one key of the experiment's training
// section and is checked as the experiment file checks that key. Declared from the training
// settings table (model/TrainingSettings.h). Runs on the CLI's main thread; Qt-free.
#pragma once

#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "model/Experiment.h"

namespace nnwb::cli {

// Declares the flags on `cmd`. Each value given lands in `overrides` under its flag
// ({"--patience": "3"}); CLI11 rejects a value that the experiment file would reject, with the
// file's message ("--patience: training.earlyStopping.patience: 0 is outside 1..100000").
void addTrainingFlags(CLI::App& cmd, nlohmann::json& overrides);
// --device, --epochs and --batch of train and walkforward (-1 and empty: the experiment's);
// `epochsHelp` says what the epochs count ("epochs per fold instead of the experiment's").
void addRunSizeFlags(CLI::App& cmd, std::string& device, int& epochs, int& batch,
                     const std::string& epochsHelp);
// `config` with `overrides` set, checked as a version 2 file; UsageError naming the flag on a
// bad value.
TrainingConfig applyTrainingFlags(const TrainingConfig& config, const nlohmann::json& overrides);

}  // namespace nnwb::cli
