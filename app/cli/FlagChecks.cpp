#include "app/cli/FlagChecks.h"

#include <cerrno>
#include <cstdlib>
#include <limits>

#include "model/data/DateTime.h"

namespace nnwb::cli {

namespace {

bool integerInRange(const std::string& v, long lo, long hi) {
    char* end = nullptr;
    errno = 0;
    const long x = std::strtol(v.c_str(), &end, 10);
    return !v.empty() && *end == '\0' && errno == 0 && x >= lo && x <= hi;
}

std::string range(long lo, long hi) {
    return std::to_string(lo) + ".." + std::to_string(hi);
}

}  // namespace

CLI::Validator integerIn(long lo, long hi) {
    return CLI::Validator(
        [lo, hi](std::string& v) {
            return integerInRange(v, lo, hi) ? std::string()
                                             : "'" + v + "' is not an integer in " + range(lo, hi);
        },
        range(lo, hi));
}

CLI::Validator integerInOr(long lo, long hi, const std::string& word) {
    return CLI::Validator(
        [lo, hi, word](std::string& v) {
            return v == word || integerInRange(v, lo, hi)
                       ? std::string()
                       : "'" + v + "' is not an integer in " + range(lo, hi) + " or " + word;
        },
        range(lo, hi) + " or " + word);
}

CLI::Validator barTime() {
    return CLI::Validator(
        [](std::string& v) {
            int64_t t = 0;
            return parseDateTime(v, t) ? std::string()
                                       : "'" + v +
                                             "' is not a date and time (e.g. 2018-06-01 or "
                                             "\"2018-06-01 13:00\")";
        },
        std::string());
}

CLI::Validator runId() {
    return CLI::Validator(
        [](std::string& v) {
            return integerInRange(v, 1, std::numeric_limits<long>::max())
                       ? std::string()
                       : "'" + v + "' is not a run id";
        },
        std::string());
}

}  // namespace nnwb::cli
