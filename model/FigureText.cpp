#include "model/FigureText.h"

#include <cmath>
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

std::string groupedFixed(double v, int decimals) {
    if (std::isnan(v)) return "n/a";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[400];  // the widest double with "%.*f" and a few decimals fits
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    const std::string text = buf;
    const size_t lead = text[0] == '-' ? 1 : 0;
    const size_t point = text.find('.') == std::string::npos ? text.size() : text.find('.');
    std::string out = text.substr(0, lead);
    for (size_t i = lead; i < point; ++i) {
        if (i > lead && (point - i) % 3 == 0) out += ',';
        out += text[i];
    }
    return out + text.substr(point);
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
