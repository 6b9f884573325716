// Walk-forward fold plans (model/data/FoldPlan.h): an exact plan worked by hand, properties over
// many random settings, files and data sections (every training and early-stopping sample's
// label ends before its fold's test window by the purge and embargo, the purge before the
// early-stopping validation, test windows increasing, non-overlapping and contiguous when
// planned so, anchored starts fixed, rolling lengths fixed, the stitched windows covering the
// planned out-of-sample span exactly), and the errors, each naming its setting.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "common/BarNeedsOf.h"
#include "model/data/DateTime.h"
#include "model/data/FoldPlan.h"

using namespace nnwb;

namespace {

using test::needsOf;

// Hourly bars from Monday 2022-05-02, without weekends (Friday 23:00 -> Monday 00:00).
std::vector<int64_t> hourlyTimes(size_t n) {
    std::vector<int64_t> t;
    int64_t at = fromCalendar(2022, 5, 2);
    for (size_t i = 0; i < n; ++i) {
        t.push_back(at);
        at += 3600;
        if ((at - fromCalendar(2022, 5, 2)) % (7 * 86400) == 5 * 86400) at += 2 * 86400;
    }
    return t;
}

ValidationConfig walkForward() {
    ValidationConfig c;
    c.mode = "walkforward";
    return c;
}

std::string planError(const ValidationConfig& c, size_t n, const BarNeeds& needs) {
    return planFolds(c, hourlyTimes(n), needs).error;
}

bool startsWith(const std::string& s, const std::string& prefix) {
    return s.rfind(prefix, 0) == 0;
}

// Every property of a usable plan; returns the first one broken ("" when none).
std::string brokenProperty(const FoldPlan& p, const ValidationConfig& c,
                           const std::vector<int64_t>& time, const BarNeeds& needs) {
    const bool bars = c.unit == "bars";
    const int64_t unit = bars ? 1 : c.unit == "days" ? 86400 : 7 * 86400;
    auto pos = [&](size_t t) { return bars ? int64_t(t) : time[t]; };
    if (p.folds.empty()) return "no folds";
    if (c.folds > 0 && p.folds.size() != size_t(c.folds)) return "fold count";
    if (p.firstSample != needs.firstBar || p.lastSample != time.size() - 1 - needs.reach)
        return "sample range";
    if (p.purge < needs.reach || (c.purge > 0 && p.purge != size_t(c.purge)) ||
        (c.purge == 0 && p.purge != needs.reach) || p.embargo != size_t(c.embargo))
        return "purge or embargo";
    const bool contiguous = c.folds > 0 || c.step == 0 || c.step == c.testLength;
    if (p.contiguous != contiguous) return "contiguous flag";
    size_t covered = 0;
    for (size_t k = 0; k < p.folds.size(); ++k) {
        const Fold& f = p.folds[k];
        if (f.trainFirst < p.firstSample || f.trainFirst > f.trainLast) return "training range";
        if (f.testFirst > f.testLast || f.testLast > p.lastSample) return "test range";
        if (f.testSamples() < needs.reach) return "test window shorter than the label horizon";
        // The label of a sample ending at bar t reads bars t+1 .. t+reach.
        for (size_t t = f.trainFirst; t <= f.partLast(); ++t) {
            if (t > f.trainLast && t < f.validationFirst) continue;  // the purge gap
            if (!(t + p.purge + p.embargo < f.testFirst)) return "purge/embargo before test";
            if (!(t + needs.reach < f.testFirst)) return "a training label reads the test";
        }
        if (f.hasValidation()) {
            if (!(f.trainLast + p.purge < f.validationFirst)) return "purge before validation";
            if (f.trainLast + needs.reach >= f.validationFirst) return "label reads validation";
            if (f.validationFirst != f.trainLast + p.purge + 1) return "validation gap size";
            const size_t part = f.partLast() - f.trainFirst + 1;
            const size_t want =
                std::max<size_t>(1, size_t(std::llround(c.earlyStoppingShare * double(part))));
            if (f.validationLast - f.validationFirst + 1 != want) return "validation share";
        } else if (c.earlyStoppingShare > 0) {
            return "validation missing";
        }
        if (f.partLast() + p.purge + p.embargo + 1 != f.testFirst) return "gap wider than asked";
        // Anchored: every fold starts where the first does: the first sample, or, with a fold
        // count, a test length and a training length, that training length before fold 1's
        // test window (and its gap).
        const bool anchoredLength = c.folds > 0 && c.testLength > 0 && c.trainLength > 0;
        if (c.scheme == "anchored" && f.trainFirst != p.folds.front().trainFirst)
            return "anchored start moves";
        if (c.scheme == "anchored" && !anchoredLength && f.trainFirst != p.firstSample)
            return "anchored start";
        if (c.scheme == "anchored" && anchoredLength && k == 0) {
            const int64_t len = c.trainLength * unit;
            if (bars && int64_t(f.partLast() - f.trainFirst + 1) != len) return "anchored length";
            if (!bars && pos(f.partLast()) - pos(f.trainFirst) >= len) return "anchored too long";
            if (!bars && f.trainFirst > p.firstSample &&
                pos(f.partLast()) - pos(f.trainFirst - 1) < len)
                return "anchored too short";
        }
        if (k > 0) {
            const Fold& e = p.folds[k - 1];
            if (!(e.testLast < f.testFirst)) return "test windows overlap or go back";
            if (contiguous && e.testLast + 1 != f.testFirst) return "test windows not contiguous";
            if (c.scheme == "rolling") {
                const size_t len = f.partLast() - f.trainFirst + 1;
                const size_t prev = e.partLast() - e.trainFirst + 1;
                if (bars && len != prev) return "rolling length changes";
            }
        }
        if (c.scheme == "rolling" && c.trainLength > 0) {
            const int64_t len = c.trainLength * unit;
            if (bars && int64_t(f.partLast() - f.trainFirst + 1) != len) return "rolling length";
            if (!bars && pos(f.partLast()) - pos(f.trainFirst) >= len) return "rolling too long";
            if (!bars && k > 0 && f.trainFirst > p.firstSample &&
                pos(f.partLast()) - pos(f.trainFirst - 1) < len)
                return "rolling too short";
        }
        if (bars && c.testLength > 0 && f.testSamples() != size_t(c.testLength))
            return "test length";
        covered += f.testSamples();
    }
    const Fold& firstFold = p.folds.front();
    const Fold& lastFold = p.folds.back();
    // Stitched, the test windows cover the planned out-of-sample span, each bar once.
    if (contiguous && covered != lastFold.testLast - firstFold.testFirst + 1)
        return "stitched span";
    if (c.folds > 0 && lastFold.testLast != p.lastSample) return "folds end at the newest sample";
    if (bars && c.folds > 0 && c.testLength == 0)
        for (const Fold& f : p.folds)
            if (std::abs(double(f.testSamples()) - double(firstFold.testSamples())) > 1)
                return "divided windows unequal";
    if (c.folds == 0 && bars) {  // as many windows as fit
        const size_t step = size_t(c.step > 0 ? c.step : c.testLength);
        if (lastFold.testFirst + step + size_t(c.testLength) - 1 <= p.lastSample)
            return "a further window would fit";
    }
    if (bars && c.scheme == "anchored" && !(c.folds > 0 && c.testLength == 0)) {
        const size_t minimum = size_t(c.trainLength > 0 ? c.trainLength : c.testLength);
        if (firstFold.partLast() - firstFold.trainFirst + 1 < minimum) return "first part short";
    }
    return "";
}

}  // namespace

TEST(FoldPlan, anchoredByHand) {
    ValidationConfig c = walkForward();
    c.folds = 3;
    c.testLength = 10;
    c.embargo = 2;  // purge 0: the label horizon, 1
    const FoldPlan p = planFolds(c, hourlyTimes(100), needsOf(0, 5, 1));
    ASSERT_TRUE(p.ok()) << p.error;
    ASSERT_EQ(p.folds.size(), size_t(3));
    EXPECT_EQ(p.purge, size_t(1));
    // Samples 4..98; the tests are the newest 30: 69..78, 79..88, 89..98.
    const size_t test[3][2] = {{69, 78}, {79, 88}, {89, 98}};
    for (size_t k = 0; k < 3; ++k) {
        EXPECT_EQ(p.folds[k].testFirst, test[k][0]);
        EXPECT_EQ(p.folds[k].testLast, test[k][1]);
        EXPECT_EQ(p.folds[k].trainFirst, size_t(4));
    }
    // Fold 1: the part is 4..65 (69 - 1 - purge 1 - embargo 2), 62 samples; 12 of them (20 %)
    // validate: 54..65; one purged bar before them: fitting 4..52.
    EXPECT_EQ(p.folds[0].trainLast, size_t(52));
    EXPECT_EQ(p.folds[0].validationFirst, size_t(54));
    EXPECT_EQ(p.folds[0].validationLast, size_t(65));
    // Rolling, 20 bars: fold 1's part is 46..65, 4 validate (62..65), fitting 46..60.
    c.scheme = "rolling";
    c.trainLength = 20;
    const FoldPlan r = planFolds(c, hourlyTimes(100), needsOf(0, 5, 1));
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.folds[0].trainFirst, size_t(46));
    EXPECT_EQ(r.folds[0].trainLast, size_t(60));
    EXPECT_EQ(r.folds[0].validationFirst, size_t(62));
    EXPECT_EQ(r.folds[2].trainFirst, size_t(66));
}

// Anchored with folds, testLength and trainLength: the first fold's training part is
// trainLength long (settings.md: "anchored: of the first fold's"), later folds keep its start.
TEST(FoldPlan, anchoredHonoursTrainLengthWithFoldsAndTestLength) {
    ValidationConfig c = walkForward();
    c.folds = 3;
    c.testLength = 10;
    c.trainLength = 20;
    c.embargo = 2;
    const FoldPlan p = planFolds(c, hourlyTimes(100), needsOf(0, 5, 1));
    ASSERT_TRUE(p.ok()) << p.error;
    // Tests 69..78, 79..88, 89..98; fold 1's part ends at 65, so it is 46..65.
    for (size_t k = 0; k < 3; ++k) EXPECT_EQ(p.folds[k].trainFirst, size_t(46));
    EXPECT_EQ(p.folds[0].partLast(), size_t(65));
    EXPECT_EQ(p.folds[2].partLast(), size_t(85));
    // Too long a training length for the file is refused, naming it.
    c.trainLength = 63;
    EXPECT_TRUE(startsWith(planError(c, 100, needsOf(0, 5, 1)),
                           "validation.trainLength: the first fold's training part holds 62"))
        << planError(c, 100, needsOf(0, 5, 1));
    c.trainLength = 62;  // the whole part: from the first sample
    EXPECT_EQ(planFolds(c, hourlyTimes(100), needsOf(0, 5, 1)).folds[0].trainFirst, size_t(4));
}

TEST(FoldPlan, stepModeAndDividedModeByHand) {
    ValidationConfig c = walkForward();
    c.folds = 0;
    c.trainLength = 30;
    c.testLength = 10;
    c.step = 15;  // gaps of 5 untested bars
    c.earlyStoppingShare = 0;
    // Samples 4..98: first part 4..33, purge 1, tests from 35: 35..44, 50..59, 65..74, 80..89
    // (95..104 does not fit).
    const FoldPlan p = planFolds(c, hourlyTimes(100), needsOf(0, 5, 1));
    ASSERT_TRUE(p.ok()) << p.error;
    ASSERT_EQ(p.folds.size(), size_t(4));
    EXPECT_FALSE(p.contiguous);
    EXPECT_EQ(p.folds[0].trainLast, size_t(33));
    EXPECT_FALSE(p.folds[0].hasValidation());
    for (size_t k = 0; k < 4; ++k) EXPECT_EQ(p.folds[k].testFirst, 35 + 15 * k);
    EXPECT_EQ(p.folds[3].testLast, size_t(89));
    // Folds 4 over the rest, train and test 0: 95 samples in five parts of 19.
    ValidationConfig d = walkForward();
    d.folds = 4;
    d.earlyStoppingShare = 0;
    const FoldPlan q = planFolds(d, hourlyTimes(100), needsOf(0, 5, 1));
    ASSERT_TRUE(q.ok()) << q.error;
    EXPECT_EQ(q.folds[0].trainLast, size_t(22));  // 4..22
    EXPECT_EQ(q.folds[0].testFirst, size_t(24));  // purge 23
    EXPECT_EQ(q.folds[3].testLast, size_t(98));
}

TEST(FoldPlan, propertiesOverRandomSettings) {
    std::mt19937 rng(20261126);
    auto pick = [&](int lo, int hi) { return int(rng() % unsigned(hi - lo + 1)) + lo; };
    int usable = 0, byUnit[3] = {0, 0, 0}, byScheme[2] = {0, 0};
    for (int round = 0; round < 3000; ++round) {
        const size_t n = size_t(pick(20, 2500));
        const BarNeeds needs =
            needsOf(size_t(pick(0, 40)), size_t(pick(2, 30)), size_t(pick(1, 2)));
        ValidationConfig c = walkForward();
        c.scheme = pick(0, 1) ? "rolling" : "anchored";
        const int unit = pick(0, 3) < 2 ? 0 : pick(1, 2);
        c.unit = unit == 0 ? "bars" : unit == 1 ? "days" : "weeks";
        const int scale = unit == 0 ? 600 : unit == 1 ? 40 : 6;
        auto length = [&] { return pick(0, 3) == 0 ? 0 : pick(1, scale); };
        c.folds = pick(0, 2) == 0 ? 0 : pick(1, 10);
        c.testLength = length();
        c.trainLength = length();
        c.step = pick(0, 1) ? 0 : c.testLength + pick(0, scale / 4);
        c.purge = pick(0, 2) == 0 ? 0 : pick(1, 6);
        c.embargo = pick(0, 1) ? 0 : pick(0, 10);
        c.earlyStoppingShare = pick(0, 3) == 0 ? 0.0 : pick(1, 50) / 100.0;
        // Irregular spacing: hours with now and then a gap of up to three days.
        std::vector<int64_t> time;
        int64_t at = fromCalendar(2021, 1, 4);
        for (size_t i = 0; i < n; ++i) {
            time.push_back(at);
            at += pick(0, 30) == 0 ? 3600 * pick(2, 72) : 3600;
        }
        const FoldPlan p = planFolds(c, time, needs);
        if (!p.ok()) {
            EXPECT_TRUE(startsWith(p.error, "validation.") || startsWith(p.error, "data: too few"))
                << p.error;
            EXPECT_TRUE(p.folds.empty());
            continue;
        }
        ++usable;
        ++byUnit[unit];
        ++byScheme[c.scheme == "rolling"];
        const std::string broken = brokenProperty(p, c, time, needs);
        ASSERT_EQ(broken, "") << "round " << round << ": n " << n << " firstBar " << needs.firstBar
                              << " reach " << needs.reach << ", " << c.toJson().dump();
    }
    // The random settings reach every kind of plan often enough to mean something.
    EXPECT_GT(usable, 600);
    EXPECT_GT(byUnit[0], 300);
    EXPECT_GT(byUnit[1] + byUnit[2], 100);
    EXPECT_GT(byScheme[0], 200);
    EXPECT_GT(byScheme[1], 200);
}

TEST(FoldPlan, errorsNameTheSetting) {
    const BarNeeds three = needsOf(0, 5, 1), five = needsOf(0, 5, 2);
    ValidationConfig c = walkForward();
    c.folds = 3;
    c.testLength = 100;
    c.purge = 1;
    EXPECT_TRUE(startsWith(planError(c, 2000, five),
                           "validation.purge: 1 bars is less than the label horizon (2"))
        << planError(c, 2000, five);
    c.purge = 0;
    c.testLength = 1;
    EXPECT_EQ(planError(c, 2000, five),
              "validation.testLength: 1 bars is shorter than the label horizon (2 bars)");
    c.folds = 10;
    c.testLength = 500;
    EXPECT_TRUE(startsWith(planError(c, 2000, three),
                           "validation.folds: 10 test windows of 500 bars do not fit"))
        << planError(c, 2000, three);
    c.folds = 0;
    c.testLength = 0;
    EXPECT_TRUE(startsWith(planError(c, 2000, three), "validation.testLength: 0 divides"));
    c.testLength = 100;
    c.step = 50;
    EXPECT_TRUE(startsWith(planError(c, 2000, three), "validation.step: 50 bars is shorter"));
    c.step = 0;
    c.testLength = 1;
    EXPECT_TRUE(startsWith(planError(c, 2000, three), "validation.step: more than 1000"));
    c.folds = 3;
    c.testLength = 100;
    c.trainLength = 1000;
    EXPECT_TRUE(startsWith(planError(c, 1200, three),
                           "validation.trainLength: the first fold's training part holds"))
        << planError(c, 1200, three);
    c.scheme = "rolling";
    EXPECT_TRUE(startsWith(planError(c, 1200, three),
                           "validation.trainLength: fold 1/3's rolling training part would "
                           "start before"))
        << planError(c, 1200, three);
    c.trainLength = 3;
    c.earlyStoppingShare = 0.9;
    EXPECT_TRUE(startsWith(planError(c, 1200, three),
                           "validation.earlyStoppingShare: fold 1/3's training part (3 samples)"))
        << planError(c, 1200, three);
    c.scheme = "anchored";
    c.earlyStoppingShare = 0.2;
    c.folds = 0;
    c.trainLength = 1190;
    EXPECT_TRUE(startsWith(planError(c, 1200, three),
                           "validation.testLength: no test window of 100 bars fits"))
        << planError(c, 1200, three);
    c.trainLength = 1196;
    EXPECT_TRUE(startsWith(planError(c, 1200, three),
                           "validation.trainLength: the first "
                           "training part"))
        << planError(c, 1200, three);
    EXPECT_TRUE(startsWith(planError(c, 5, needsOf(0, 5, 1)), "data: too few bars"))
        << planError(c, 5, needsOf(0, 5, 1));
    // One-day test windows stepping over a weekend of hourly bars find one without a bar.
    ValidationConfig d = walkForward();
    d.unit = "days";
    d.folds = 0;
    d.trainLength = 2;
    d.testLength = 1;
    EXPECT_TRUE(startsWith(planError(d, 400, three), "validation.testLength: fold "))
        << planError(d, 400, three);
    EXPECT_NE(planError(d, 400, three).find("holds 0 samples"), std::string::npos);
}
