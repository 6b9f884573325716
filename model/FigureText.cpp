#include "model/FigureText.h"

#include <cstdio>

namespace nnwb {

std::string groupedCount(int64_t n) {
    const std::string digits = std::to_string(n);
    const size_t lead = n < 0 ? 1 : 0;
    std::string out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > lead && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string accuracyCell(double accuracyPct, size_t signalCount) {
    char buf[64];
    if (accuracyShown(signalCount))
        std::snprintf(buf, sizeof buf, "%.2f (%s)", accuracyPct,
                      groupedCount(int64_t(signalCount)).c_str());
    else
        std::snprintf(buf, sizeof buf, "n/a (%zu)", signalCount);
    return buf;
}

std::string accuracyText(double accuracyPct, size_t signalCount) {
    char buf[96];
    const char* noun = signalCount == 1 ? "signal" : "signals";
    if (accuracyShown(signalCount))
        std::snprintf(buf, sizeof buf, "%.2f %% (%s %s)", accuracyPct,
                      groupedCount(int64_t(signalCount)).c_str(), noun);
    else
        std::snprintf(buf, sizeof buf, "n/a (%zu %s, fewer than %zu)", signalCount, noun,
                      kMinSignalsForAccuracy);
    return buf;
}

}  // namespace nnwb
