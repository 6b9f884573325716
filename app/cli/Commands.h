// The sub-commands of nnwb-cli, each taking the arguments after its name and returning the
// process exit status (0 success, 1 failure while running, 2 bad input or arguments).
// Runs on the CLI's main thread; Qt-free.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "app/runs/RunRecorder.h"

namespace nnwb::cli {

using Args = std::vector<std::string>;

int runDevices(const Args& args);
int runTrain(const Args& args);
int runBench(const Args& args);
int runCompare(const Args& args);
int runRuns(const Args& args);
int runPredict(const Args& args);
int runExport(const Args& args);

// Small argument helpers shared by the commands.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};
// Value after a flag at args[i]; advances i. Throws UsageError if missing.
std::string flagValue(const Args& args, size_t& i);
int flagInt(const Args& args, size_t& i, int lo, int hi);
// The run-store flags of train and compare (--runs-db PATH, --no-record, --name N, --tags T,
// --note T): consumes args[i] (and its value) into `o` and returns true when it is one.
bool recordingFlag(const Args& args, size_t& i, RecordingOptions& o);
// Prints a recorder's warning on stderr ("nnwb-cli CMD: warning: ...").
RunRecorder::Warn stderrWarning(const std::string& command);

}  // namespace nnwb::cli
