// MetaTrader 5 indicator definitions (data.indicators "mt5") against values computed by hand
// (exact fractions) on the first 12 real bars of the bundled EURUSD H1 file: ATR as the SMA of
// the true range, MACD with first-close-seeded EMAs and an SMA signal line, RSI and CCI; the
// textbook ATR beside it; warm-ups; and which definitions old and new data sections get.
#include <gtest/gtest.h>

#include <cmath>
#include <iomanip>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/FuzzyCompare.h"
#include "model/data/BarImporter.h"
#include "model/data/DataConfig.h"
#include "model/data/Features.h"
#include "model/data/Indicators.h"

using namespace nnwb;

namespace {

constexpr double kNone = NAN;

// Bars 2017-01-02 23:00 .. 2017-01-03 10:00 of resources/data/EURUSD_H1_2017-2018.csv.
const double kHigh[] = {1.05266, 1.04706, 1.04803, 1.04776, 1.04843, 1.04892,
                        1.04896, 1.04887, 1.04881, 1.04651, 1.04358, 1.04160};
const double kLow[] = {1.04550, 1.04563, 1.04639, 1.04700, 1.04708, 1.04812,
                       1.04810, 1.04804, 1.04529, 1.04198, 1.03995, 1.03950};
const double kClose[] = {1.04568, 1.04656, 1.04750, 1.04715, 1.04842, 1.04876,
                         1.04816, 1.04875, 1.04599, 1.04343, 1.04011, 1.03957};

std::vector<double> vec(const double* p) {
    return std::vector<double>(p, p + 12);
}

// Relative tolerance: 1e-12 by default; CCI divides small differences of prices (about 1e-4)
// by their mean deviation, so rounding of the double inputs shows at 1e-9.
void expectSeries(const std::vector<double>& got, const std::vector<double>& want, const char* what,
                  double tol = 1e-12) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
        if (std::isnan(want[i])) {
            ASSERT_TRUE(std::isnan(got[i]))
                << what << "[" << i << "] should have no value, has " << got[i];
            continue;
        }
        ASSERT_TRUE(std::fabs(got[i] - want[i]) <= tol * (1.0 + std::fabs(want[i])))
            << std::setprecision(17) << what << "[" << i << "] = " << got[i] << ", by hand "
            << want[i];
    }
}

}  // namespace

TEST(Mt5Indicators, realBarsMatchTheFile) {
    // The constants above are the file's bars (so the test runs on a real series).
    const LoadResult r = loadBarFile(defaultDataFile());
    ASSERT_TRUE(r.ok) << r.error.c_str();
    for (size_t i = 0; i < 12; ++i) {
        ASSERT_FUZZY_EQ(r.bars.high[i], kHigh[i]);
        ASSERT_FUZZY_EQ(r.bars.low[i], kLow[i]);
        ASSERT_FUZZY_EQ(r.bars.close[i], kClose[i]);
    }
}

TEST(Mt5Indicators, atrIsTheSimpleAverageOfTrueRanges) {
    // By hand: tr1 = 1.04706 - 1.04563 = 0.00143, tr2 = 1.04803 - 1.04639 = 0.00164,
    // tr3 = 1.04776 - 1.04700 = 0.00076 -> ATR(3) at bar 3 = 0.00383 / 3; tr4 = 0.00135
    // -> bar 4 = (0.00164 + 0.00076 + 0.00135) / 3 = 0.00125.
    const std::vector<double> want = {kNone,
                                      kNone,
                                      kNone,
                                      0.00383 / 3,
                                      0.00125,
                                      0.00097,
                                      0.0010033333333333333,
                                      0.00083,
                                      0.0017366666666666667,
                                      0.00296,
                                      0.0038933333333333333,
                                      0.00342};
    expectSeries(atrSma(vec(kHigh), vec(kLow), vec(kClose), 3), want, "ATR mt5");
    // The textbook (Wilder) ATR agrees on the first value only.
    const std::vector<double> wilder = {kNone,
                                        kNone,
                                        kNone,
                                        0.00383 / 3,
                                        0.0013011111111111112,
                                        0.001134074074074074,
                                        0.001042716049382716,
                                        0.0009718106995884774,
                                        0.0018212071330589849,
                                        0.00272413808870599,
                                        0.0030260920591373267,
                                        0.0027173947060915513};
    expectSeries(atrWilder(vec(kHigh), vec(kLow), vec(kClose), 3), wilder, "ATR textbook");
    ASSERT_EQ(atrWarmup(3), size_t(3));
}

TEST(Mt5Indicators, macdHasAnSmaSignalLine) {
    // EMA(2) and EMA(4) start at close[0]; main shown from bar 3 (slow - 1), the signal
    // SMA(3) of main from bar 5 (3 + 3 - 1).
    const std::vector<double> main = {kNone,
                                      kNone,
                                      kNone,
                                      0.00029810962962962964,
                                      0.0005229645432098765,
                                      0.0005191449810699588,
                                      0.0002199424070233196,
                                      0.0002587839170077732,
                                      -0.0005384568255307423,
                                      -0.0012369831538969142,
                                      -0.0019321595785309713,
                                      -0.001699952309182857};
    const std::vector<double> signal = {kNone,
                                        kNone,
                                        kNone,
                                        kNone,
                                        kNone,
                                        0.00044673971796982165,
                                        0.0004206839771010517,
                                        0.00033262376836701725,
                                        -1.9910167166549816e-05,
                                        -0.0005055520208066277,
                                        -0.0012358665193195426,
                                        -0.0016230316805369142};
    const MacdSeries m = macdMt5(vec(kClose), 2, 4, 3);
    expectSeries(m.main, main, "MACD main mt5");
    expectSeries(m.signal, signal, "MACD signal mt5");
    // The signal is the plain mean of the last three main values.
    ASSERT_TRUE(std::fabs(m.signal[7] - (main[5] + main[6] + main[7]) / 3) < 1e-15);
    ASSERT_EQ(macdMainWarmup(2, 4), size_t(3));
    ASSERT_EQ(macdSignalWarmup(2, 4, 3), size_t(5));
}

TEST(Mt5Indicators, rsiAndCciAsMt5) {
    const std::vector<double> rsi = {kNone,
                                     kNone,
                                     kNone,
                                     83.87096774193549,
                                     91.41104294478528,
                                     92.76859504132231,
                                     65.40422432629279,
                                     75.89291378544694,
                                     24.267196786822726,
                                     12.4675622440153,
                                     6.407142493713631,
                                     5.7278459231950105};
    expectSeries(rsiWilder(vec(kClose), 3), rsi, "RSI");
    const std::vector<double> cci = {kNone,
                                     kNone,
                                     10.330578512396695,
                                     49.71857410881801,
                                     100.0,
                                     97.46192893401015,
                                     22.468354430379748,
                                     29.41176470588235,
                                     -100.0,
                                     -100.0,
                                     -100.0,
                                     -72.8110599078341};
    expectSeries(cciTypical(vec(kHigh), vec(kLow), vec(kClose), 3), cci, "CCI", 1e-9);
}

TEST(Mt5Indicators, featureMatrixFollowsTheDefinitions) {
    BarSeries b;
    for (int i = 0; i < 12; ++i) {
        b.time.push_back(1483398000 + int64_t(i) * 3600);
        b.open.push_back(i ? kClose[i - 1] : kHigh[0]);
        b.high.push_back(kHigh[i]);
        b.low.push_back(kLow[i]);
        b.close.push_back(kClose[i]);
        b.volume.push_back(0);
    }
    FeatureSpec spec;
    spec.enabled.fill(false);
    spec.setEnabled(Feature::Atr, true);
    spec.setEnabled(Feature::MacdSignal, true);
    spec.atrPeriod = 3;
    spec.macdFast = 2;
    spec.macdSlow = 4;
    spec.macdSignal = 3;
    ASSERT_EQ(int(spec.definitions), int(IndicatorDefinitions::Mt5));
    const FeatureMatrix mt5 = computeFeatures(b, spec);
    ASSERT_FUZZY_EQ(mt5.at(11, 0), atrSma(b.high, b.low, b.close, 3)[11]);
    ASSERT_FUZZY_EQ(mt5.at(11, 1), macdMt5(b.close, 2, 4, 3).signal[11]);
    spec.definitions = IndicatorDefinitions::Textbook;
    const FeatureMatrix tb = computeFeatures(b, spec);
    ASSERT_FUZZY_EQ(tb.at(11, 0), atrWilder(b.high, b.low, b.close, 3)[11]);
    ASSERT_FUZZY_EQ(tb.at(11, 1), macd(b.close, 2, 4, 3).signal[11]);
    ASSERT_TRUE(tb.at(11, 0) != mt5.at(11, 0));
}

TEST(Mt5Indicators, oldFilesKeepTextbookNewOnesGetMt5) {
    ASSERT_EQ(int(DataConfig().features.definitions), int(IndicatorDefinitions::Mt5));
    ASSERT_EQ(DataConfig().toJson()["indicators"].get<std::string>(), std::string("mt5"));
    const DataConfig old = DataConfig::fromJson(nlohmann::json::object());
    ASSERT_EQ(int(old.features.definitions), int(IndicatorDefinitions::Textbook));
    ASSERT_EQ(old.toJson()["indicators"].get<std::string>(), std::string("textbook"));
    const DataConfig mt5 = DataConfig::fromJson({{"indicators", "mt5"}});
    ASSERT_EQ(int(mt5.features.definitions), int(IndicatorDefinitions::Mt5));
    ASSERT_EQ(DataConfig::fromJson(mt5.toJson()).toJson(), mt5.toJson());
    try {
        DataConfig::fromJson({{"indicators", "mql4"}});
        FAIL() << "an unknown definition set was accepted";
    } catch (const std::invalid_argument& e) {
        ASSERT_EQ(std::string(e.what()),
                  std::string("data.indicators: must be \"mt5\" or \"textbook\""));
    }
}
