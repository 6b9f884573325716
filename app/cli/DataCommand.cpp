#include "app/cli/DataCommand.h"

#include <cstdio>

#include "model/data/BarImporter.h"
#include "model/data/DataSummary.h"

namespace nnwb {

namespace {

const char* const kUsage =
    "usage: nnwb-cli data FILE [--json]\n"
    "  Reads a MetaTrader 5 \"Export bars\" file, a MetaTrader 4 history CSV or a CSV with a\n"
    "  header (datetime or date+time, open, high, low, close[, volume]) and prints its format,\n"
    "  bar count, first and last bar, time frame, gaps and 3-bar fractal counts.\n"
    "  --json  one JSON object: format, bars, first, last, timeframe, gaps, buy, sell, both\n";

}  // namespace

int runDataCommand(const std::vector<std::string>& args) {
    std::string file;
    bool json = false;
    for (const std::string& a : args) {
        if (a == "--json") {
            json = true;
        } else if (a == "-h" || a == "--help") {
            std::fputs(kUsage, stdout);
            return 0;
        } else if (!a.empty() && a[0] == '-' && a != "-") {
            std::fprintf(stderr, "nnwb-cli data: unknown option '%s'\n%s", a.c_str(), kUsage);
            return 2;
        } else if (file.empty()) {
            file = a;
        } else {
            std::fprintf(stderr, "nnwb-cli data: more than one file given\n%s", kUsage);
            return 2;
        }
    }
    if (file.empty()) {
        std::fprintf(stderr, "nnwb-cli data: no file given\n%s", kUsage);
        return 2;
    }
    const LoadResult r = loadBarFile(file);
    if (!r.ok) {
        std::fprintf(stderr, "%s\n", r.error.c_str());
        return 2;
    }
    for (const std::string& w : r.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    const DataSummary s = summarizeBars(r.bars);
    if (json)
        std::printf("%s\n", summaryToJson(s).dump().c_str());
    else
        std::fputs(formatSummaryText(s).c_str(), stdout);
    std::fflush(stdout);
    return 0;
}

}  // namespace nnwb
