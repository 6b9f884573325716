#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "app/cli/Commands.h"

namespace nnwb::cli {

std::string flagValue(const Args& args, size_t& i) {
    if (i + 1 >= args.size()) throw UsageError(args[i] + " needs a value");
    return args[++i];
}

int flagInt(const Args& args, size_t& i, int lo, int hi) {
    const std::string flag = args[i];
    const std::string v = flagValue(args, i);
    char* end = nullptr;
    errno = 0;
    const long x = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || errno != 0 || x < lo || x > hi)
        throw UsageError(flag + ": '" + v + "' is not an integer in " + std::to_string(lo) + ".." +
                         std::to_string(hi));
    return static_cast<int>(x);
}

bool recordingFlag(const Args& args, size_t& i, RecordingOptions& o) {
    const std::string& a = args[i];
    if (a == "--runs-db")
        o.dbPath = flagValue(args, i);
    else if (a == "--no-record")
        o.enabled = false;
    else if (a == "--name")
        o.name = flagValue(args, i);
    else if (a == "--tags")
        o.tags = flagValue(args, i);
    else if (a == "--note")
        o.note = flagValue(args, i);
    else
        return false;
    return true;
}

RunRecorder::Warn stderrWarning(const std::string& command) {
    return [command](const std::string& message) {
        std::fprintf(stderr, "nnwb-cli %s: warning: %s\n", command.c_str(), message.c_str());
        std::fflush(stderr);
    };
}

}  // namespace nnwb::cli
