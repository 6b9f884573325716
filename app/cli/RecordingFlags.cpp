#include "app/cli/RecordingFlags.h"

#include <cstdio>

namespace nnwb::cli {

namespace {

// One flag with a value: its name, the option it sets, how the help names the value, the help.
struct RecordingFlag {
    const char* flag;
    std::string RecordingOptions::*field;
    const char* value;
    const char* help;
};

const RecordingFlag kRecordingFlags[] = {
    {"--runs-db", &RecordingOptions::dbPath, "PATH",
     "the run store (else $NNWB_RUNS_DB, else $XDG_DATA_HOME/nnwb/runs.sqlite, "
     "~/.local/share/nnwb/runs.sqlite)"},
    {"--name", &RecordingOptions::name, "N", "the run's name (default: the experiment's)"},
    {"--tags", &RecordingOptions::tags, "A,B", "the run's tags, comma-separated"},
    {"--note", &RecordingOptions::note, "TEXT", "a note kept with the run"},
};

const char* const kGroup = "Run store (every run is recorded)";

}  // namespace

void addRecordingFlags(CLI::App& cmd, RecordingOptions& options, bool named) {
    for (const RecordingFlag& f : kRecordingFlags) {
        if (!named && f.field == &RecordingOptions::name) continue;
        cmd.add_option(f.flag, options.*f.field, f.help)->type_name(f.value)->group(kGroup);
    }
    cmd.add_flag_callback(
           "--no-record", [&options] { options.enabled = false; }, "do not record the run")
        ->group(kGroup);
}

void addRunsDbFlag(CLI::App& cmd, std::string& path) {
    const RecordingFlag& f = kRecordingFlags[0];
    cmd.add_option(f.flag, path, f.help)->type_name(f.value);
}

RunRecorder::Warn stderrWarning(const std::string& command) {
    return [command](const std::string& message) {
        std::fprintf(stderr, "nnwb-cli %s: warning: %s\n", command.c_str(), message.c_str());
        std::fflush(stderr);
    };
}

}  // namespace nnwb::cli
