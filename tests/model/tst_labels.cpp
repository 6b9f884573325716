// Fractal labels: hand-made bar series with known 3-bar and 5-bar (Williams) fractals,
// outside bars, equal highs (strictness) and the ends of the series.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/data/Fractals.h"

using namespace nnwb;

TEST(Labels, threeBar) {
    //                         0  1  2  3  4  5  6  7  8
    const std::vector<double> h = {5, 6, 9, 7, 7, 8, 6, 9, 8};
    const std::vector<double> l = {4, 3, 5, 2, 4, 1, 5, 5, 6};
    const std::vector<uint8_t> f = fractalFlags(h, l, FractalRule::ThreeBar);
    ASSERT_EQ(f.size(), h.size());
    // bar 2: high 9 > 6, 7 -> sell. bar 3: low 2 < 5, 4 -> buy. bar 5: high 8 > 7, 6 and
    // low 1 < 4, 5 -> outside bar (both). bar 7: high 9 > 6, 8 -> sell. bar 4: high 7 is
    // not > 7 (equal high, strict) -> none. Ends have no label.
    const std::vector<uint8_t> expected = {
        0, kFractalBuy, kFractalSell, kFractalBuy, 0, kFractalBuy | kFractalSell, 0, kFractalSell,
        0};
    // bar 1: low 3 < 4 and < 5 -> buy.
    ASSERT_EQ(f, expected);
}

TEST(Labels, fiveBar) {
    //                         0  1  2  3  4  5  6  7  8  9
    const std::vector<double> h = {5, 6, 9, 7, 8, 6, 5, 4, 6, 5};
    const std::vector<double> l = {4, 3, 5, 2, 4, 1, 3, 2, 4, 3};
    const std::vector<uint8_t> f = fractalFlags(h, l, FractalRule::FiveBar);
    // Labels only for bars 2..7. bar 2: high 9 > 5,6,7,8 -> sell; low 5 not < 3 -> no buy.
    // bar 3: low 2 < 3,5,4,1? no (bar 5 has 1). bar 4: high 8 > 9? no. bar 5: low 1 < 2,4,
    // 3,2 -> buy; high 6 > 7? no. bar 6, 7: neither (bar 7 low 2 vs bar 5 low 1).
    const std::vector<uint8_t> expected = {0, 0, kFractalSell, 0, 0, kFractalBuy, 0, 0, 0, 0};
    ASSERT_EQ(f, expected);
    // The 3-bar rule sees more: bar 3 (low 2 < 5, 4) is a 3-bar buy but not a 5-bar one.
    ASSERT_TRUE(fractalFlags(h, l, FractalRule::ThreeBar)[3] & kFractalBuy);
    ASSERT_EQ(fractalReach(FractalRule::FiveBar), 2);
    ASSERT_EQ(fractalReach(FractalRule::ThreeBar), 1);
}

TEST(Labels, fiveBarOutsideAndStrict) {
    const std::vector<double> h = {1, 2, 10, 2, 1, 10, 2};
    const std::vector<double> l = {5, 4, 0, 4, 5, 4, 5};
    const std::vector<uint8_t> f = fractalFlags(h, l, FractalRule::FiveBar);
    ASSERT_EQ(int(f[2]), int(kFractalBuy | kFractalSell));
    // bar 4: high 1 and low 5 are extremes of nothing -> none.
    ASSERT_EQ(int(f[4]), 0);
    // Equal highs two bars away break a 5-bar fractal.
    const std::vector<double> h2 = {9, 1, 9, 1, 2};
    const std::vector<double> l2 = {0, 0, 0, 0, 0};
    ASSERT_EQ(int(fractalFlags(h2, l2, FractalRule::FiveBar)[2]), 0);
}

TEST(Labels, tooShortSeries) {
    ASSERT_EQ(fractalFlags({}, {}, FractalRule::ThreeBar), std::vector<uint8_t>{});
    ASSERT_EQ(fractalFlags({1, 2}, {1, 2}, FractalRule::ThreeBar), (std::vector<uint8_t>{0, 0}));
    ASSERT_EQ(fractalFlags({1, 5, 1, 1}, {0, 0, 0, 0}, FractalRule::FiveBar),
              (std::vector<uint8_t>{0, 0, 0, 0}));
    ASSERT_EQ(fractalFlags({1, 5, 1}, {1, 0, 1}, FractalRule::ThreeBar),
              (std::vector<uint8_t>{0, kFractalBuy | kFractalSell, 0}));
}

TEST(Labels, names) {
    FractalRule r = FractalRule::ThreeBar;
    ASSERT_TRUE(parseFractalRule("5bar", r));
    ASSERT_EQ(int(r), int(FractalRule::FiveBar));
    ASSERT_FALSE(parseFractalRule("7bar", r));
    ASSERT_EQ(std::string(fractalRuleName(FractalRule::ThreeBar)), std::string("3bar"));
}
