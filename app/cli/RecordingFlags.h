// The run-store flags of train and compare (--runs-db PATH, --no-record, --name N, --tags A,B,
// --note TEXT), declared from one table in RecordingFlags.cpp, and the stderr warning of a
// recorder. Runs on the CLI's main thread; Qt-free.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "app/runs/RunRecorder.h"

namespace nnwb::cli {

// Declares the flags on `cmd`, writing into `options`; without `named`, no --name (compare
// names its runs by their labels).
void addRecordingFlags(CLI::App& cmd, RecordingOptions& options, bool named = true);
// Only --runs-db (the runs commands read the store that train and compare write).
void addRunsDbFlag(CLI::App& cmd, std::string& path);
// Prints a recorder's warning on stderr ("nnwb-cli CMD: warning: ...").
RunRecorder::Warn stderrWarning(const std::string& command);

}  // namespace nnwb::cli
