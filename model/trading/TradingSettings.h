// The trading evaluation's settings (docs/trading.md): the rules that turn signals into trades
// (threshold, exits), the costs (spread, commission, slippage), the point size and the random
// baseline, declared once as a settings table (model/SettingSpec.h) from which the `trading`
// section of an experiment file, the CLI's trading flags, tooltips and docs/settings.md come.
// Plain value type and read-only tables; any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/SettingSpec.h"

namespace nnwb {

struct TradingSettings {
    // A buy or sell signal acts (enters, reverses) only when its output is at least this.
    double threshold = 0.0;
    // An ensemble's signal acts only when at least this share of its members votes for it
    // (0: off; one model's signals always agree).
    double minAgreement = 0.0;
    // An opposite signal closes the position at the next bar's open (and reverses it when
    // that signal acts).
    bool exitOnOpposite = true;
    int exitAfterBars = 0;  // close at the open N bars after the entry bar; 0: no time exit
    double stopAtr = 0.0;   // stop loss at this many ATRs from the entry price; 0: none
    double takeAtr = 0.0;   // take profit at this many ATRs; 0: none
    int atrPeriod = 14;     // ATR (MetaTrader 5's: the simple average of true ranges)
    // "file": the bars' spread column where the file has one, else spreadPoints;
    // "given": spreadPoints on every bar.
    std::string spreadSource = "file";
    double spreadPoints = 0.0;    // points
    double commission = 0.0;      // points per round trip (entry and exit together)
    double slippagePoints = 0.0;  // points against the trade on every fill (entry and exit)
    double pointSize = 0.0;       // the price of one point; 0: from the file (BarSeries::point)
    uint64_t randomSeed = 1;      // the random-signal baseline's seed
    int randomDraws = 100;        // random trade sets averaged in the baseline

    nlohmann::json toJson() const;
    // Reads an experiment's `trading` section (missing keys keep the defaults); unknown keys
    // and invalid values throw std::invalid_argument("trading.KEY: problem").
    static TradingSettings fromJson(const nlohmann::json& j);
};

struct TradingSetting {
    SettingSpec spec;
    std::function<nlohmann::json(const TradingSettings&)> get;
    std::function<void(TradingSettings&, const nlohmann::json&)> set;  // a checked value
};

const std::vector<TradingSetting>& tradingSettings();
// The specs alone, in table order (for forms, flags and docs).
const std::vector<SettingSpec>& tradingSettingSpecs();

// If `flag` is a trading flag (--threshold, --spread, ...), puts its checked value into
// `trading` (the JSON section) and returns true; throws std::invalid_argument with the CLI's
// message ("--spread: 'x' is not a number").
bool applyTradingFlag(const std::string& flag, const std::string& value, nlohmann::json& trading);

}  // namespace nnwb
