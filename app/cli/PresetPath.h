// Finds an experiment preset by name ("mql5-fractal-5x8") or path: the path itself, then
// presets/ in each resource folder (model/ResourceDirs.h: $NNWB_RESOURCE_DIR, the installed
// tree beside nnwb-cli, the source tree). CLI thread; Qt-free.
#pragma once

#include <string>

namespace nnwb::cli {

// Throws std::runtime_error listing where it looked.
std::string resolvePreset(const std::string& nameOrPath);
// `nameOrPath` when a file is there, else the path of the preset of that name, else "".
std::string findExperimentOrPreset(const std::string& nameOrPath);
// The names of the presets found, sorted, comma-separated ("attention-single-head, ...").
std::string presetNames();

}  // namespace nnwb::cli
