#include "model/trading/TradingSettings.h"

#include <stdexcept>

namespace nnwb {

namespace {

using K = SettingSpec::Kind;
using Get = std::function<nlohmann::json(const TradingSettings&)>;
using Set = std::function<void(TradingSettings&, const nlohmann::json&)>;

template <class T>
std::pair<Get, Set> field(T TradingSettings::*m) {
    return {[m](const TradingSettings& c) { return nlohmann::json(c.*m); },
            [m](TradingSettings& c, const nlohmann::json& v) { v.get_to(c.*m); }};
}

// One entry: the spec's fields, then its place in TradingSettings.
class Entry {
public:
    Entry(K kind, std::string key, std::string label, std::string help) {
        t_.spec.kind = kind;
        t_.spec.key = key;
        t_.spec.name = "trading" + std::string(1, char(key[0] - 'a' + 'A')) + key.substr(1);
        t_.spec.label = std::move(label);
        t_.spec.help = std::move(help);
    }
    Entry& range(double lo, double hi) {
        t_.spec.min = lo;
        t_.spec.max = hi;
        return *this;
    }
    Entry& spin(int decimals, double step) {
        t_.spec.decimals = decimals;
        t_.spec.step = step;
        return *this;
    }
    Entry& unit(std::string u) { return t_.spec.unit = std::move(u), *this; }
    Entry& flag(std::string f) { return t_.spec.flag = std::move(f), *this; }
    Entry& choices(std::vector<std::string> values, std::vector<std::string> labels) {
        t_.spec.choices = std::move(values);
        t_.spec.choiceLabels = std::move(labels);
        return *this;
    }
    Entry& to(std::pair<Get, Set> access) {
        t_.get = std::move(access.first);
        t_.set = std::move(access.second);
        return *this;
    }
    TradingSetting done(const char* group) {
        t_.spec.group = group;
        t_.spec.defaultValue = t_.get(TradingSettings());
        return t_;
    }

private:
    TradingSetting t_;
};

void add(std::vector<TradingSetting>& out, const char* group, std::vector<Entry> entries) {
    for (Entry& e : entries) out.push_back(e.done(group));
}

void ruleSettings(std::vector<TradingSetting>& out) {
    using T = TradingSettings;
    add(out, "Trading rules",
        {Entry(K::Real, "threshold", "Signal threshold",
               "A buy or sell signal (the largest output) acts, entering or reversing a "
               "position, only when its output is at least this (the network's output: a "
               "softmax share with cross-entropy, the raw output with mean squared error)")
             .range(-1e6, 1e6)
             .spin(3, 0.05)
             .flag("--threshold")
             .to(field(&T::threshold)),
         Entry(K::Bool, "exitOnOpposite", "exit on the opposite signal",
               "A sell signal closes a long (a buy signal a short) at the next bar's open, and "
               "reverses it when that signal acts")
             .flag("--exit-opposite")
             .to(field(&T::exitOnOpposite)),
         Entry(K::Int, "exitAfterBars", "Exit after",
               "Closes a position at the open of the bar N bars after its entry bar (0: no "
               "time exit)")
             .range(0, 1000000)
             .unit("bars")
             .flag("--exit-after")
             .to(field(&T::exitAfterBars)),
         Entry(K::Real, "stopAtr", "Stop loss",
               "Stop at this many ATRs (ATR of the signal bar) from the entry price, checked "
               "against each bar's high and low from the entry bar on (0: none)")
             .range(0, 1000)
             .spin(2, 0.5)
             .unit("ATR")
             .flag("--stop-atr")
             .to(field(&T::stopAtr)),
         Entry(K::Real, "takeAtr", "Take profit",
               "Take profit at this many ATRs (ATR of the signal bar) from the entry price (0: "
               "none). Stop and take in the same bar: the stop")
             .range(0, 1000)
             .spin(2, 0.5)
             .unit("ATR")
             .flag("--take-atr")
             .to(field(&T::takeAtr)),
         Entry(K::Int, "atrPeriod", "ATR period",
               "Bars of the ATR behind the stop and take (MetaTrader 5's ATR: the simple "
               "average of the true ranges)")
             .range(1, 10000)
             .unit("bars")
             .flag("--atr-period")
             .to(field(&T::atrPeriod))});
}

void costSettings(std::vector<TradingSetting>& out) {
    using T = TradingSettings;
    add(out, "Costs",
        {Entry(K::Choice, "spreadSource", "Spread",
               "file: each bar's spread from the price file's spread column (MetaTrader 5's "
               "SPREAD column), the given spread where the file has none; given: the given spread "
               "on every bar")
             .choices({"file", "given"}, {"From the file", "Given"})
             .flag("--spread-source")
             .to(field(&T::spreadSource)),
         Entry(K::Real, "spreadPoints", "Given spread",
               "The spread when the file has no spread column or the source is 'given'. The "
               "prices are bid prices: a long pays it at entry, a short at exit")
             .range(0, 1e9)
             .spin(1, 1)
             .unit("points")
             .flag("--spread")
             .to(field(&T::spreadPoints)),
         Entry(K::Real, "commission", "Commission",
               "Cost of one round trip (entry and exit together)")
             .range(0, 1e9)
             .spin(2, 1)
             .unit("points")
             .flag("--commission")
             .to(field(&T::commission)),
         Entry(K::Real, "slippagePoints", "Slippage",
               "Price moved against the trade on every fill, entry and exit")
             .range(0, 1e9)
             .spin(1, 1)
             .unit("points")
             .flag("--slippage")
             .to(field(&T::slippagePoints)),
         Entry(K::Real, "pointSize", "Point size",
               "The price of one point (0.00001 for a 5-digit EURUSD); 0: from the file, 10^-d "
               "for the most decimals d its prices are written with")
             .range(0, 1e6)
             .flag("--point")
             .to(field(&T::pointSize))});
}

void baselineSettings(std::vector<TradingSetting>& out) {
    using T = TradingSettings;
    add(out, "Random baseline",
        {Entry(K::Int, "randomSeed", "Seed",
               "Seed of the random-signal baseline (same seed, bars and trades: the same "
               "baseline)")
             .range(0, 18446744073709551615.0)
             .flag("--random-seed")
             .to(field(&T::randomSeed)),
         Entry(K::Int, "randomDraws", "Draws",
               "Random trade sets averaged in the random-signal baseline (count)")
             .range(1, 100000)
             .flag("--random-draws")
             .to(field(&T::randomDraws))});
}

std::vector<TradingSetting> makeTable() {
    std::vector<TradingSetting> t;
    ruleSettings(t);
    costSettings(t);
    baselineSettings(t);
    return t;
}

}  // namespace

const std::vector<TradingSetting>& tradingSettings() {
    static const std::vector<TradingSetting> kTable = makeTable();
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
