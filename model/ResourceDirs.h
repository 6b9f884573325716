// Where the bundled files are (experiments/default.json, presets/, data/ and its NOTICE): the
// one search order of every program, the window's and nnwb-cli's. Qt-free; any thread (reads
// the environment and the file system only).
#pragma once

#include <string>
#include <vector>

namespace nnwb {

// The resource folders that exist, in the order to search them, each once and absolute:
// $NNWB_RESOURCE_DIR, then beside the running program (<bin>/resources, the installed tree
// <bin>/../share/nnwb and <bin>/../share/nnwb/resources), then the source tree's resources/
// (NNWB_RESOURCE_DIR at build time).
std::vector<std::string> resourceSearchDirs();

}  // namespace nnwb
