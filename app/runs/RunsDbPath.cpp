#include "app/runs/RunsDbPath.h"

#include <cstdlib>

namespace nnwb {

std::string runsDbPath(const std::string& explicitPath) {
    if (!explicitPath.empty()) return explicitPath;
    auto env = [](const char* name) {
        const char* v = std::getenv(name);
        return std::string(v ? v : "");
    };
    if (!env("NNWB_RUNS_DB").empty()) return env("NNWB_RUNS_DB");
    // XDG: a relative XDG_DATA_HOME is invalid and must be ignored.
    const std::string xdg = env("XDG_DATA_HOME");
    if (!xdg.empty() && xdg[0] == '/') return xdg + "/nnwb/runs.sqlite";
    const std::string home = env("HOME");
    if (home.empty()) return {};
    return home + "/.local/share/nnwb/runs.sqlite";
}

}  // namespace nnwb
