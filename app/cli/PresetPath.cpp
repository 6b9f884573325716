#include "app/cli/PresetPath.h"

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <vector>

namespace nnwb::cli {

std::string resolvePreset(const std::string& nameOrPath) {
    std::vector<std::string> tried{nameOrPath};
    if (const char* env = std::getenv("NNWB_RESOURCE_DIR"))
        tried.push_back(std::string(env) + "/presets/" + nameOrPath + ".json");
    tried.push_back(std::string(NNWB_RESOURCE_DIR) + "/presets/" + nameOrPath + ".json");
    for (const auto& p : tried)
        if (std::ifstream(p).good()) return p;
    std::string where;
    for (const auto& p : tried) where += "\n  " + p;
    throw std::runtime_error("no preset '" + nameOrPath + "'; looked for:" + where);
}

}  // namespace nnwb::cli
