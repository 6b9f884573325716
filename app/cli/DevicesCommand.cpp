// `nnwb-cli devices [--json]`: the compute devices, as a table or one JSON array.
#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "app/cli/Commands.h"
#include "compute/Backend.h"
#include "compute/BackendRegistry.h"

namespace nnwb::cli {

namespace {

int runDevices(bool json) {
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

}  // namespace

void addDevicesCommand(CLI::App& root, Runners& runners) {
    auto json = std::make_shared<bool>(false);
    CLI::App* cmd = root.add_subcommand(
        "devices",
        "list compute devices (cpu, opencl:P:D)\n"
        "Lists the compute devices: cpu (the native backend) and every OpenCL device as "
        "opencl:PLATFORM:DEVICE with its name, compute units, memory and OpenCL version.");
    cmd->footer("Exit status: 0 done, 2 bad arguments.");
    cmd->add_flag("--json", *json, "one JSON array instead of the table");
    runners[cmd] = [json] { return runDevices(*json); };
}

}  // namespace nnwb::cli
