#include <cerrno>
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
        throw UsageError(flag + ": '" + v + "' is not an integer in " + std::to_string(lo) +
                         ".." + std::to_string(hi));
    return static_cast<int>(x);
}

}  // namespace nnwb::cli
