// The verdict line (model/trading/Verdict.h) on made-up figures: the rules of docs/trading.md
// ("Verdict") in order: no trades, too few trades, a loss, trailing buy and hold, random entries
// as good, a deflated Sharpe too low, evidence of an edge; figures that do not exist (NaN).
#include <gtest/gtest.h>

#include "model/trading/Verdict.h"

using namespace nnwb;

namespace {

VerdictFigures edge() {
    VerdictFigures f;
    f.trades = 400;
    f.netPoints = 52000;
    f.buyAndHoldPoints = 12000;
    f.randomShare = 0.02;
    f.randomDraws = 100;
    return f;
}

}  // namespace

TEST(Verdict, theIssuesExampleHasNoEdge) {
    VerdictFigures f;
    f.trades = 9353;
    f.netPoints = -375565;
    f.buyAndHoldPoints = 37252;
    f.randomShare = 0.38;
    f.randomDraws = 100;
    f.folds = 6;
    EXPECT_EQ(tradingVerdict(f),
              "Out of sample (6 folds) the strategy lost 375,565 points after costs over 9,353 "
              "trades; buy and hold made 37,252; 38 % of random entries did as well: no "
              "evidence of an edge.");
}

TEST(Verdict, anEdgeNeedsAllRules) {
    EXPECT_EQ(tradingVerdict(edge()),
              "Over the evaluated range the strategy made 52,000 points after costs over 400 "
              "trades; buy and hold made 12,000; 2 % of random entries did as well: evidence of "
              "an edge over this period (not proof that it lasts).");
    VerdictFigures f = edge();
    f.deflatedSharpe = 0.97;
    EXPECT_NE(tradingVerdict(f).find("deflated Sharpe 0.97: evidence of an edge"),
              std::string::npos);
}

TEST(Verdict, eachRuleTakesTheEdgeAway) {
    VerdictFigures f = edge();
    f.randomShare = 0.06;  // just above 5 %
    EXPECT_NE(tradingVerdict(f).find(": no evidence of an edge over chance."), std::string::npos);
    f = edge();
    f.buyAndHoldPoints = 52000;  // buy and hold as good
    EXPECT_NE(tradingVerdict(f).find(": no evidence of an edge over buy and hold."),
              std::string::npos);
    f = edge();
    f.netPoints = 0;
    EXPECT_NE(tradingVerdict(f).find("made 0 points"), std::string::npos);
    EXPECT_NE(tradingVerdict(f).find(": no evidence of an edge."), std::string::npos);
    f = edge();
    f.deflatedSharpe = 0.9;
    EXPECT_NE(tradingVerdict(f).find("deflated Sharpe 0.90: no evidence of an edge after the "
                                     "trials tried."),
              std::string::npos);
    f = edge();
    f.randomDraws = 0;
    f.randomShare = kNotAvailable;
    EXPECT_NE(tradingVerdict(f).find("made 12,000: no random baseline, so chance cannot be ruled "
                                     "out."),
              std::string::npos);
}

TEST(Verdict, tooFewTradesToJudgeWhateverTheNet) {
    VerdictFigures f = edge();
    f.trades = 29;
    EXPECT_NE(tradingVerdict(f).find("over 29 trades"), std::string::npos);
    EXPECT_NE(tradingVerdict(f).find(": too few trades to judge."), std::string::npos);
    f.trades = 30;
    EXPECT_NE(tradingVerdict(f).find(": evidence of an edge"), std::string::npos);
    f.trades = 1;
    f.netPoints = -5.26;
    EXPECT_NE(tradingVerdict(f).find("lost 5.3 points after costs over 1 trade;"),
              std::string::npos);
}

TEST(Verdict, noTradesIsNothingToJudge) {
    VerdictFigures f;
    f.trades = 0;
    f.netPoints = 0;
    f.randomShare = kNotAvailable;  // n/a without strategy trades
    f.randomDraws = 100;
    f.buyAndHoldPoints = 1000;
    EXPECT_EQ(tradingVerdict(f),
              "Over the evaluated range the strategy made no trades: nothing to judge.");
    f.trades = kNotAvailable;
    EXPECT_EQ(tradingVerdict(f),
              "Over the evaluated range the strategy made no trades: nothing to judge.");
}

TEST(Verdict, fromAReport) {
    TradingReport r;
    r.strategy.trades = 50;
    r.strategy.netPoints = -100;
    r.buyAndHold.trades = 1;
    r.buyAndHold.netPoints = 250.4;
    r.randomDraws = 20;
    r.randomNetAtOrAbove = 0.5;
    EXPECT_EQ(tradingVerdict(verdictFigures(r)),
              "Over the evaluated range the strategy lost 100 points after costs over 50 trades; "
              "buy and hold made 250; 50 % of random entries did as well: no evidence of an "
              "edge.");
}

TEST(Verdict, groupedNumbers) {
    EXPECT_EQ(groupedNumber(1234567.4), "1,234,567");
    EXPECT_EQ(groupedNumber(-999.6), "-1,000");
    EXPECT_EQ(groupedNumber(100), "100");
    EXPECT_EQ(groupedNumber(99.94), "99.9");
    EXPECT_EQ(groupedNumber(-0.01), "0");
    EXPECT_EQ(groupedNumber(kNotAvailable), "n/a");
}
