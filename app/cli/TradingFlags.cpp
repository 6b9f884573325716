#include "app/cli/TradingFlags.h"

#include "app/cli/SettingFlags.h"

namespace nnwb::cli {

namespace {

const SettingFlagTable& tradingFlagTable() {
    static const SettingFlagTable table{
        &tradingSettingSpecs(), "trading",
        "Trading (with --trading; each overrides the default or the experiment's trading "
        "section)",
        TradingSettings().toJson(),
        [](const nlohmann::json& trading) { TradingSettings::fromJson(trading); }};
    return table;
}

}  // namespace

void addTradingFlags(CLI::App& cmd, nlohmann::json& overrides) {
    addSettingFlags(cmd, tradingFlagTable(), overrides);
}

TradingSettings applyTradingFlags(const TradingSettings& base, const nlohmann::json& overrides) {
    return TradingSettings::fromJson(
        applySettingFlags(tradingFlagTable(), base.toJson(), overrides));
}

}  // namespace nnwb::cli
