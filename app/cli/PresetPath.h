// Finds an experiment preset by name ("mql5-fractal-5x8") or path: the path itself, then
// $NNWB_RESOURCE_DIR/presets, then the source tree's resources/presets. CLI thread; Qt-free.
#pragma once

#include <string>

namespace nnwb::cli {

// Throws std::runtime_error listing where it looked.
std::string resolvePreset(const std::string& nameOrPath);

}  // namespace nnwb::cli
