// Where the run store lives: $NNWB_RUNS_DB, else $XDG_DATA_HOME/nnwb/runs.sqlite, else
// ~/.local/share/nnwb/runs.sqlite (the XDG base directory default). Pure functions of the
// environment; any thread. Qt-free.
#pragma once

#include <string>

namespace nnwb {

// `explicitPath` (a --runs-db value) wins when not empty. Empty when no location can be made
// out (no HOME).
std::string runsDbPath(const std::string& explicitPath = {});

}  // namespace nnwb
