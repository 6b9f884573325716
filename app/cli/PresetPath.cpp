#include "app/cli/PresetPath.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "model/ResourceDirs.h"

namespace nnwb::cli {

std::string resolvePreset(const std::string& nameOrPath) {
    std::vector<std::string> tried{nameOrPath};
    for (const std::string& dir : resourceSearchDirs())
        tried.push_back(dir + "/presets/" + nameOrPath + ".json");
    std::error_code ec;
    for (const auto& p : tried)
        if (std::filesystem::exists(p, ec)) return p;  // read (or refused) by the loader
    std::string where;
    for (const auto& p : tried) where += "\n  " + p;
    throw std::runtime_error("no preset '" + nameOrPath + "'; looked for:" + where);
}

std::string findExperimentOrPreset(const std::string& nameOrPath) {
    try {
        return resolvePreset(nameOrPath);
    } catch (const std::runtime_error&) {
        return {};
    }
}

std::string presetNames() {
    std::vector<std::string> names;
    for (const std::string& dir : resourceSearchDirs()) {
        std::error_code ec;
        for (const auto& f : std::filesystem::directory_iterator(dir + "/presets", ec)) {
            if (f.path().extension() != ".json") continue;
            const std::string name = f.path().stem().string();
            if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
        }
    }
    std::sort(names.begin(), names.end());
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

}  // namespace nnwb::cli
