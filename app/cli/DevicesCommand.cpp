#include <cstdio>

#include <nlohmann/json.hpp>

#include "app/cli/Commands.h"
#include "compute/Backend.h"
#include "compute/BackendRegistry.h"

namespace nnwb::cli {

int runDevices(const Args& args) {
    bool json = false;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--json")
            json = true;
        else
            throw UsageError("unknown option '" + args[i] + "'");
    }
    const auto devices = listDevices();
    if (json) {
        nlohmann::json arr = nlohmann::json::array();
        for (const auto& d : devices)
            arr.push_back({{"id", d.id},
                           {"name", d.name},
                           {"vendor", d.vendor},
                           {"platform", d.platform},
                           {"version", d.version},
                           {"type", d.type},
                           {"computeUnits", d.computeUnits},
                           {"globalMemory", d.globalMemory}});
        std::printf("%s\n", arr.dump(2).c_str());
        return 0;
    }
    std::printf("%-14s %-40s %5s %10s  %s\n", "ID", "NAME", "CU", "MEMORY", "VERSION");
    for (const auto& d : devices) {
        const std::string mem =
            d.globalMemory ? std::to_string(d.globalMemory / (1024 * 1024)) + " MiB" : "-";
        std::printf("%-14s %-40s %5d %10s  %s\n", d.id.c_str(), d.name.c_str(), d.computeUnits,
                    mem.c_str(), d.version.c_str());
    }
    return 0;
}

}  // namespace nnwb::cli
