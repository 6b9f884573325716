#include "app/runs/StoredTrading.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "model/trading/TradingReportText.h"

namespace nnwb {

std::optional<double> storedTradingFigure(const nlohmann::json& trading, const char* key,
                                          const char* series) {
    if (!trading.is_object() || !trading.contains(series)) return std::nullopt;
    const nlohmann::json& s = trading[series];
    return tradingFigureFromJson(s, key);
}

std::string storedTradingText(const std::optional<double>& value, int decimals) {
    if (!value || std::isnan(*value)) return "n/a";
    if (std::isinf(*value)) return *value > 0 ? "inf" : "-inf";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, *value);
    return buf;
}

}  // namespace nnwb
