// The settings of the Data pane's form, declared once: the keys of an experiment's `data`
// section that the pane edits (source, window, validation share, normalization, fractal rule,
// indicator definitions, positional encoding; the synthetic task's size), with label, kind,
// range, default, unit and help. The pane's form, its tooltips and docs/settings.md come from
// this table; DataConfig::fromJson and SyntheticConfig::fromJson check the same ranges (a test
// holds them equal). The feature switches come from the feature table (model/data/Features.h).
// Read-only after static initialization; any thread.
#pragma once

#include <vector>

#include "model/SettingSpec.h"

namespace nnwb {

// Groups: "Price file" (source "file") and "Synthetic task" (source "synthetic"); "source"
// itself is in group "Source".
const std::vector<SettingSpec>& dataSettings();

}  // namespace nnwb
