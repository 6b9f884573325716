#include "app/cli/PresetPath.h"

#include <fstream>
#include <stdexcept>
#include <vector>

#include "model/ResourceDirs.h"

namespace nnwb::cli {

std::string resolvePreset(const std::string& nameOrPath) {
    std::vector<std::string> tried{nameOrPath};
    for (const std::string& dir : resourceSearchDirs())
        tried.push_back(dir + "/presets/" + nameOrPath + ".json");
    for (const auto& p : tried)
        if (std::ifstream(p).good()) return p;
    std::string where;
    for (const auto& p : tried) where += "\n  " + p;
    throw std::runtime_error("no preset '" + nameOrPath + "'; looked for:" + where);
}

}  // namespace nnwb::cli
