// The commands of nnwb-cli. Each add*Command declares its CLI11 subcommand on the root app (its
// flags, each with its range and help) and registers what runs it once the command line is
// parsed; that returns the process exit status (0 success, 1 failure while running, 2 bad input
// or arguments). Runs on the CLI's main thread; Qt-free.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <map>
#include <stdexcept>

namespace nnwb::cli {

// What runs each (leaf) command, by its CLI11 app.
using Runners = std::map<const CLI::App*, std::function<int()>>;

void addDevicesCommand(CLI::App& root, Runners& runners);
void addDataCommand(CLI::App& root, Runners& runners);
void addTrainCommand(CLI::App& root, Runners& runners);
void addWalkForwardCommand(CLI::App& root, Runners& runners);
void addBenchCommand(CLI::App& root, Runners& runners);
void addCompareCommand(CLI::App& root, Runners& runners);
void addPredictCommand(CLI::App& root, Runners& runners);
void addExportCommand(CLI::App& root, Runners& runners);
void addRunsCommand(CLI::App& root, Runners& runners);
void addSweepCommand(CLI::App& root, Runners& runners);
void addReportCommand(CLI::App& root, Runners& runners);
// The Slurm subcommands of `sweep` (SweepSlurmCommand.cpp): export-bundle, submit, task,
// import, status.
void addSweepSlurmCommands(CLI::App& sweep, Runners& runners);

// Bad input found after parsing (a file that does not load, flags that do not go together):
// "nnwb-cli CMD: message" on stderr, exit status 2.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace nnwb::cli
