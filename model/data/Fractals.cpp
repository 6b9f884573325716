#include "model/data/Fractals.h"

namespace nnwb {

int fractalReach(FractalRule rule) {
    return rule == FractalRule::FiveBar ? 2 : 1;
}

std::vector<uint8_t> fractalFlags(const std::vector<double>& high, const std::vector<double>& low,
                                  FractalRule rule) {
    const size_t n = high.size() < low.size() ? high.size() : low.size();
    std::vector<uint8_t> flags(n, 0);
    const size_t r = static_cast<size_t>(fractalReach(rule));
    if (n < 2 * r + 1) return flags;
    for (size_t c = r; c + r < n; ++c) {
        bool sell = true, buy = true;
        for (size_t k = 1; k <= r; ++k) {
            sell = sell && high[c] > high[c - k] && high[c] > high[c + k];
            buy = buy && low[c] < low[c - k] && low[c] < low[c + k];
        }
        flags[c] = static_cast<uint8_t>((buy ? kFractalBuy : 0) | (sell ? kFractalSell : 0));
    }
    return flags;
}

const char* fractalRuleName(FractalRule rule) {
    return rule == FractalRule::FiveBar ? "5bar" : "3bar";
}

bool parseFractalRule(const std::string& name, FractalRule& out) {
    if (name == "3bar")
        out = FractalRule::ThreeBar;
    else if (name == "5bar")
        out = FractalRule::FiveBar;
    else
        return false;
    return true;
}

}  // namespace nnwb
