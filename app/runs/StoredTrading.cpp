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

std::string storedSpreadText(const nlohmann::json& trading) {
    if (!trading.is_object()) return "spread unknown";
    if (trading.value("spreadFrom", std::string()) == "file") return "spread from the file";
    const nlohmann::json* points =
        trading.contains("spreadPoints") ? &trading["spreadPoints"] : nullptr;
    if (!points && trading.contains("settings") && trading["settings"].is_object() &&
        trading["settings"].contains("spreadPoints"))
        points = &trading["settings"]["spreadPoints"];
    if (!points || !points->is_number()) return "the given spread";
    char buf[64];
    const double v = points->get<double>();
    std::snprintf(buf, sizeof buf, "spread from the setting: %g point%s", v, v == 1.0 ? "" : "s");
    return buf;
}

std::string storedTradingText(const std::optional<double>& value, int decimals) {
    if (!value || std::isnan(*value)) return "n/a";
    if (std::isinf(*value)) return *value > 0 ? "inf" : "-inf";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, *value);
    return buf;
}

}  // namespace nnwb
