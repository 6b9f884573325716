#include "app/runs/StoredTrading.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace nnwb {

std::optional<double> storedTradingFigure(const nlohmann::json& trading, const char* key,
                                          const char* series) {
    if (!trading.is_object() || !trading.contains(series)) return std::nullopt;
    const nlohmann::json& s = trading[series];
    if (!s.is_object() || !s.contains(key)) return std::nullopt;
    if (s[key].is_number()) return s[key].get<double>();
    if (s[key].is_null() && std::string(key) == "profitFactor")
        return std::numeric_limits<double>::infinity();
    return std::nullopt;
}

std::string storedTradingText(const std::optional<double>& value, int decimals) {
    if (!value || std::isnan(*value)) return "n/a";
    if (std::isinf(*value)) return *value > 0 ? "inf" : "-inf";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, *value);
    return buf;
}

}  // namespace nnwb
