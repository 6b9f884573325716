// The trading settings table (model/trading/TradingSettings.h): every entry complete and
// unique, the `trading` section's JSON (round trip, unknown keys and bad values named
// "trading.KEY: problem", an experiment file's section), the CLI flags from the table; and
// the report's text forms (model/trading/TradingCsv.h, TradingReportText.h).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "common/Thrown.h"
#include "model/Experiment.h"
#include "model/trading/TradingCsv.h"
#include "model/trading/TradingReportText.h"
#include "model/trading/TradingSettings.h"

using namespace nnwb;
using json = nlohmann::json;

namespace {

using test::thrown;

}  // namespace

TEST(TradingSettings, everyEntryIsCompleteAndUnique) {
    std::set<std::string> keys, names, flags;
    const json defaults = TradingSettings().toJson();
    ASSERT_EQ(tradingSettings().size(), 14u);
    for (const SettingSpec& s : tradingSettingSpecs()) {
        EXPECT_TRUE(keys.insert(s.key).second) << s.key;
        EXPECT_TRUE(names.insert(s.name).second) << s.name;
        EXPECT_FALSE(s.flag.empty()) << s.key;
        EXPECT_TRUE(flags.insert(s.flag).second) << s.flag;
        EXPECT_FALSE(s.label.empty() || s.help.empty() || s.group.empty()) << s.key;
        EXPECT_EQ(defaults.at(s.key), s.defaultValue) << s.key;
        EXPECT_NO_THROW(s.check("trading", s.defaultValue)) << s.key;
    }
}

TEST(TradingSettings, jsonRoundTripAndErrorsNameTheKey) {
    TradingSettings t;
    t.threshold = 0.6;
    t.exitOnOpposite = false;
    t.exitAfterBars = 24;
    t.stopAtr = 2;
    t.takeAtr = 3.5;
    t.atrPeriod = 20;
    t.spreadSource = "given";
    t.spreadPoints = 12;
    t.commission = 7;
    t.slippagePoints = 1.5;
    t.pointSize = 0.001;
    t.randomSeed = 99;
    t.randomDraws = 20;
    const json j = t.toJson();
    EXPECT_EQ(TradingSettings::fromJson(j).toJson(), j);
    EXPECT_EQ(j.at("spreadSource"), "given");
    EXPECT_EQ(TradingSettings::fromJson(json::object()).toJson(), TradingSettings().toJson());

    EXPECT_EQ(thrown([] {
                  TradingSettings::fromJson({{"stopLoss", 2}});
              }),
              "trading.stopLoss: unknown setting");
    EXPECT_EQ(thrown([] {
                  TradingSettings::fromJson({{"exitAfterBars", 1.5}});
              }),
              "trading.exitAfterBars: must be an integer, got 1.5");
    EXPECT_EQ(thrown([] {
                  TradingSettings::fromJson({{"commission", -1}});
              }),
              "trading.commission: -1 is outside [0, 1e+09]");
    EXPECT_EQ(thrown([] {
                  TradingSettings::fromJson({{"spreadSource", "ask"}});
              }),
              "trading.spreadSource: 'ask' is not one of file, given");
    EXPECT_EQ(thrown([] {
                  TradingSettings::fromJson({{"exitOnOpposite", "yes"}});
              }),
              "trading.exitOnOpposite: must be true or false, got \"yes\"");
    EXPECT_EQ(thrown([] {
                  TradingSettings::fromJson({{"randomDraws", 0}});
              }),
              "trading.randomDraws: 0 is outside 1..100000");
    EXPECT_EQ(thrown([] { TradingSettings::fromJson(json::array()); }),
              "trading: must be an object");
}

TEST(TradingSettings, experimentFileSection) {
    json e = {{"formatVersion", 2},
              {"model", {{"layers", {{{"type", "dense"}, {"neurons", 3}}}}}},
              {"trading", {{"spreadPoints", 15}, {"threshold", 0.4}}}};
    const Experiment x = Experiment::fromJson(e);
    EXPECT_EQ(x.trading.spreadPoints, 15);
    EXPECT_EQ(x.trading.threshold, 0.4);
    EXPECT_EQ(x.toJson().at("trading"), x.trading.toJson());
    EXPECT_EQ(Experiment::fromJson(x.toJson()).toJson(), x.toJson());
    e.erase("trading");
    EXPECT_EQ(Experiment::fromJson(e).trading.toJson(), TradingSettings().toJson());
    e["trading"] = {{"slippagePoints", -3}};
    try {
        Experiment::fromJson(e);
        FAIL() << "a negative slippage was accepted";
    } catch (const ExperimentError& ex) {
        EXPECT_EQ(std::string(ex.what()), "trading.slippagePoints: -3 is outside [0, 1e+09]");
    }
}

TEST(TradingSettings, flagsFromTheTable) {
    json t = TradingSettings().toJson();
    EXPECT_TRUE(applyTradingFlag("--spread", "20", t));
    EXPECT_TRUE(applyTradingFlag("--exit-opposite", "off", t));
    EXPECT_TRUE(applyTradingFlag("--exit-after", "5", t));
    EXPECT_TRUE(applyTradingFlag("--spread-source", "given", t));
    EXPECT_FALSE(applyTradingFlag("--epochs", "5", t));
    const TradingSettings s = TradingSettings::fromJson(t);
    EXPECT_EQ(s.spreadPoints, 20);
    EXPECT_FALSE(s.exitOnOpposite);
    EXPECT_EQ(s.exitAfterBars, 5);
    EXPECT_EQ(s.spreadSource, "given");
    EXPECT_EQ(thrown([&] { applyTradingFlag("--spread", "x", t); }),
              "--spread: 'x' is not a number");
    EXPECT_EQ(thrown([&] { applyTradingFlag("--commission", "-2", t); }),
              "--commission: trading.commission: -2.0 is outside [0, 1e+09]");
    EXPECT_EQ(thrown([&] { applyTradingFlag("--spread-source", "mid", t); }),
              "--spread-source: trading.spreadSource: 'mid' is not one of file, given");
}

TEST(TradingText, csvAndJsonForms) {
    TradingReport r;
    r.firstBar = 3;
    r.lastBar = 5;
    r.point = 0.01;
    r.spreadFrom = "file";
    Trade t;
    t.direction = -1;
    t.signalBar = 3;
    t.entryBar = 4;
    t.exitBar = 5;
    t.entryTime = 1583143200;  // 2020-03-02 10:00
    t.exitTime = 1583146800;
    t.entryPrice = 10.19;
    t.exitPrice = 9.73;
    t.exitReason = ExitReason::Stop;
    t.stopLevel = 10.5;
    t.bars = 2;
    t.spread = 2;
    t.gross = 50;
    t.cost = 4.5;
    t.net = 45.5;
    t.grossPct = 4.9;
    t.costPct = 0.5;
    t.netPct = 4.4;
    r.trades.push_back(t);
    r.equity.bar = {3, 4};
    r.equity.time = {1583139600, 1583143200};
    r.equity.position = {0, -1};
    r.equity.points = {0, 23.5};
    r.equity.pct = {0, 0.25};
    EXPECT_EQ(
        tradesCsv(r),
        "direction,signal_bar,entry_bar,entry_time,entry_price,exit_bar,exit_time,"
        "exit_price,exit_reason,stop_level,take_level,bars,spread_points,gross_points,cost_points,"
        "net_points,"
        "gross_pct,cost_pct,net_pct\n"
        "short,3,4,2020-03-02 10:00,10.19,5,2020-03-02 11:00,9.73,stop,10.5,0,2,2,50,4.5,45.5,"
        "4.9,0.5,4.4\n");
    EXPECT_EQ(equityCsv(r),
              "bar,time,position,equity_points,equity_pct\n"
              "3,2020-03-02 09:00,0,0,0\n"
              "4,2020-03-02 10:00,-1,23.5,0.25\n");

    r.strategy.trades = 1;
    r.strategy.winRate = 100;  // an infinite profit factor: a trade won, none lost
    r.strategy.profitFactor = std::numeric_limits<double>::infinity();
    r.strategy.netPoints = 45.5;
    r.random.trades = 1;
    r.random.netPoints = -3.25;
    r.randomDraws = 10;
    r.randomNetAtOrAbove = 0.1;
    const nlohmann::ordered_json j = tradingReportJson(r, true);
    EXPECT_EQ(j.at("range").at("bars"), 3);
    EXPECT_TRUE(j.at("strategy").at("profitFactor").is_null());
    EXPECT_EQ(j.at("strategy").at("netPoints"), 45.5);
    EXPECT_EQ(j.at("random").at("draws"), 10);
    EXPECT_EQ(j.at("trades").at(0).at("exitReason"), "stop");
    const TradingFigures back = tradingFiguresFromJson(json::parse(j.at("strategy").dump()));
    EXPECT_TRUE(std::isinf(back.profitFactor));
    EXPECT_EQ(back.netPoints, 45.5);
    const std::string text = tradingReportText(r);
    EXPECT_NE(text.find("profit factor"), std::string::npos);
    EXPECT_NE(text.find("inf"), std::string::npos);
    EXPECT_NE(text.find("-3.25"), std::string::npos);
    EXPECT_NE(text.find("bars 3..5 (3)"), std::string::npos);
}
