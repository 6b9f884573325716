// The validation flags of `nnwb-cli train` and `nnwb-cli walkforward` (--validation, --scheme,
// --folds, --test-length, --purge, ...): each overrides one key of the experiment's validation
// section and is checked as the experiment file checks that key. Declared from the validation
// settings table (model/ValidationSettings.h). Runs on the CLI's main thread; Qt-free.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "model/ValidationSettings.h"

namespace nnwb::cli {

// Declares the flags on `cmd` (all but --validation when `withMode` is false). Each value given
// lands in `overrides` under its flag; CLI11 rejects a value the experiment file would reject.
void addValidationFlags(CLI::App& cmd, nlohmann::json& overrides, bool withMode = true);
// `config` with `overrides` set; UsageError naming the flag on a bad value.
ValidationConfig applyValidationFlags(const ValidationConfig& config,
                                      const nlohmann::json& overrides);

}  // namespace nnwb::cli
