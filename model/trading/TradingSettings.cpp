#include "model/trading/TradingSettings.h"

#include <stdexcept>

#include "model/SettingEntry.h"

namespace nnwb {

namespace {

using K = SettingSpec::Kind;
using TradingEntry = SettingEntry<TradingSetting, TradingSettings>;

// An entry whose short id is "trading" + its key ("tradingStopAtr").
TradingEntry tradingEntry(K kind, const std::string& key, std::string label, std::string help) {
    const std::string name = "trading" + std::string(1, char(key[0] - 'a' + 'A')) + key.substr(1);
    return TradingEntry(kind, key, name, std::move(label), std::move(help));
}

void addTradingBox(std::vector<TradingSetting>& out, const char* group,
                   std::vector<TradingEntry> entries) {
    for (TradingEntry& e : entries) out.push_back(e.done(group));
}

void ruleSettings(std::vector<TradingSetting>& out) {
    using T = TradingSettings;
    addTradingBox(
        out, "Trading rules",
        {tradingEntry(K::Real, "threshold", "Signal threshold",
                      "A buy or sell signal (the largest output) acts, entering or reversing a "
                      "position, only when its output is at least this (the network's output: a "
                      "softmax share with cross-entropy, the raw output with mean squared error)")
             .range(-1e6, 1e6)
             .spin(3, 0.05)
             .flag("--threshold")
             .to(fieldAccess(&T::threshold)),
         tradingEntry(K::Real, "minAgreement", "Minimum agreement",
                      "An ensemble's buy or sell signal acts only when at least this share of "
                      "its members votes for it (their own largest output is the signal; 0: "
                      "off; a single model always agrees with itself)")
             .range(0, 1)
             .spin(2, 0.05)
             .flag("--min-agreement")
             .to(fieldAccess(&T::minAgreement)),
         tradingEntry(
             K::Bool, "exitOnOpposite", "exit on the opposite signal",
             "A sell signal closes a long (a buy signal a short) at the next bar's open, and "
             "reverses it when that signal acts")
             .flag("--exit-opposite")
             .to(fieldAccess(&T::exitOnOpposite)),
         tradingEntry(K::Int, "exitAfterBars", "Exit after",
                      "Closes a position at the open of the bar N bars after its entry bar (0: no "
                      "time exit)")
             .range(0, 1000000)
             .unit("bars")
             .flag("--exit-after")
             .to(fieldAccess(&T::exitAfterBars)),
         tradingEntry(
             K::Real, "stopAtr", "Stop loss",
             "Stop at this many ATRs (ATR of the signal bar) from the entry price, checked "
             "against each bar's high and low from the entry bar on (0: none)")
             .range(0, 1000)
             .spin(2, 0.5)
             .unit("ATR")
             .flag("--stop-atr")
             .to(fieldAccess(&T::stopAtr)),
         tradingEntry(
             K::Real, "takeAtr", "Take profit",
             "Take profit at this many ATRs (ATR of the signal bar) from the entry price (0: "
             "none). Stop and take in the same bar: the stop")
             .range(0, 1000)
             .spin(2, 0.5)
             .unit("ATR")
             .flag("--take-atr")
             .to(fieldAccess(&T::takeAtr)),
         tradingEntry(K::Int, "atrPeriod", "ATR period",
                      "Bars of the ATR behind the stop and take (MetaTrader 5's ATR: the simple "
                      "average of the true ranges)")
             .range(1, 10000)
             .unit("bars")
             .flag("--atr-period")
             .to(fieldAccess(&T::atrPeriod))});
}

void costSettings(std::vector<TradingSetting>& out) {
    using T = TradingSettings;
    addTradingBox(
        out, "Costs",
        {tradingEntry(
             K::Choice, "spreadSource", "Spread",
             "file: each bar's spread from the price file's spread column (MetaTrader 5's "
             "SPREAD column), the given spread where the file has none; given: the given spread "
             "on every bar")
             .choices({"file", "given"}, {"From the file", "Given"})
             .flag("--spread-source")
             .to(fieldAccess(&T::spreadSource)),
         tradingEntry(K::Real, "spreadPoints", "Given spread",
                      "The spread when the file has no spread column or the source is 'given'. The "
                      "prices are bid prices: a long pays it at entry, a short at exit")
             .range(0, 1e9)
             .spin(1, 1)
             .unit("points")
             .flag("--spread")
             .to(fieldAccess(&T::spreadPoints)),
         tradingEntry(K::Real, "commission", "Commission",
                      "Cost of one round trip (entry and exit together)")
             .range(0, 1e9)
             .spin(2, 1)
             .unit("points")
             .flag("--commission")
             .to(fieldAccess(&T::commission)),
         tradingEntry(K::Real, "slippagePoints", "Slippage",
                      "Price moved against the trade on every fill, entry and exit")
             .range(0, 1e9)
             .spin(1, 1)
             .unit("points")
             .flag("--slippage")
             .to(fieldAccess(&T::slippagePoints)),
         tradingEntry(
             K::Real, "pointSize", "Point size",
             "The price of one point (0.00001 for a 5-digit EURUSD); 0: from the file, 10^-d "
             "for the most decimals d its prices are written with")
             .range(0, 1e6)
             .flag("--point")
             .to(fieldAccess(&T::pointSize))});
}

void baselineSettings(std::vector<TradingSetting>& out) {
    using T = TradingSettings;
    addTradingBox(
        out, "Random baseline",
        {tradingEntry(K::Int, "randomSeed", "Seed",
                      "Seed of the random-signal baseline (same seed, bars and trades: the same "
                      "baseline)")
             .range(0, 18446744073709551615.0)
             .flag("--random-seed")
             .to(fieldAccess(&T::randomSeed)),
         tradingEntry(K::Int, "randomDraws", "Draws",
                      "Random trade sets averaged in the random-signal baseline (count)")
             .range(1, 100000)
             .flag("--random-draws")
             .to(fieldAccess(&T::randomDraws))});
}

std::vector<TradingSetting> makeTradingTable() {
    std::vector<TradingSetting> t;
    ruleSettings(t);
    costSettings(t);
    baselineSettings(t);
    return t;
}

}  // namespace

const std::vector<TradingSetting>& tradingSettings() {
    static const std::vector<TradingSetting> kTable = makeTradingTable();
    return kTable;
}

const std::vector<SettingSpec>& tradingSettingSpecs() {
    static const std::vector<SettingSpec> kSpecs = [] {
        std::vector<SettingSpec> s;
        for (const TradingSetting& t : tradingSettings()) s.push_back(t.spec);
        return s;
    }();
    return kSpecs;
}

nlohmann::json TradingSettings::toJson() const {
    nlohmann::json j = nlohmann::json::object();
    for (const TradingSetting& t : tradingSettings()) putSetting(j, t.spec, t.get(*this));
    return j;
}

TradingSettings TradingSettings::fromJson(const nlohmann::json& j) {
    if (!j.is_object()) throw std::invalid_argument("trading: must be an object");
    for (auto it = j.begin(); it != j.end(); ++it) {
        bool known = false;
        for (const TradingSetting& t : tradingSettings()) known = known || t.spec.key == it.key();
        if (!known) throw std::invalid_argument("trading." + it.key() + ": unknown setting");
    }
    TradingSettings c;
    for (const TradingSetting& t : tradingSettings()) {
        const nlohmann::json* v = findSetting(j, t.spec, "trading");
        if (!v) continue;
        t.spec.check("trading", *v);
        t.set(c, *v);
    }
    return c;
}

bool applyTradingFlag(const std::string& flag, const std::string& value, nlohmann::json& trading) {
    const SettingSpec* s = findSettingByFlag(tradingSettingSpecs(), flag);
    if (!s) return false;
    applySettingFlag(*s, value, trading, "trading");
    return true;
}

}  // namespace nnwb
