// Combinatorial purged cross-validation plans (model/data/CpcvPlan.h): N = 6, k = 2 worked by
// hand (15 splits, 5 paths, the groups, purge and embargo of one split, the path assignment),
// properties over many random settings and data sections (no test sample in any split's
// training or validation part, the purge before and the purge and embargo after each run of
// test groups exactly as wide as stated, the early-stopping validation the newest share with the
// purge before it, every sample tested exactly once per path, every split's test groups on
// exactly one path each), and the errors, each naming its setting.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "common/BarNeedsOf.h"
#include "model/data/CpcvPlan.h"

using namespace nnwb;

namespace {

using test::needsOf;

ValidationConfig cpcv(int groups, int testGroups) {
    ValidationConfig c;
    c.mode = "walkforward";
    c.scheme = "cpcv";
    c.groups = groups;
    c.testGroups = testGroups;
    return c;
}

bool startsWith(const std::string& s, const std::string& prefix) {
    return s.rfind(prefix, 0) == 0;
}

// 0: not in the split, 1: fitted, 2: early-stopping validation, 3: test.
std::vector<int> roles(const CpcvPlan& p, const CpcvSplit& s, size_t bars) {
    std::vector<int> r(bars, 0);
    auto mark = [&](const std::vector<BarRange>& ranges, int role, bool& clash) {
        for (const BarRange& b : ranges)
            for (size_t t = b.first; t <= b.last; ++t) {
                if (r[t] != 0) clash = true;
                r[t] = role;
            }
    };
    bool clash = false;
    mark(s.train, 1, clash);
    mark(s.validation, 2, clash);
    mark(s.test, 3, clash);
    if (clash) r.assign(bars, -1);
    (void)p;
    return r;
}

bool ascendingDisjoint(const std::vector<BarRange>& ranges) {
    for (size_t i = 0; i < ranges.size(); ++i) {
        if (ranges[i].empty()) return false;
        if (i > 0 && ranges[i - 1].last >= ranges[i].first) return false;
    }
    return true;
}

// The first property of a usable plan that is broken ("" when none).
std::string brokenProperty(const CpcvPlan& p, const ValidationConfig& c, size_t bars,
                           const BarNeeds& needs) {
    const size_t n = size_t(c.groups), k = size_t(c.testGroups);
    if (p.splits.size() != binomial(n, k)) return "split count";
    if (p.paths.size() != binomial(n, k) * k / n) return "path count";
    if (p.firstSample != needs.firstBar || p.lastSample != bars - 1 - needs.reach)
        return "sample range";
    if (p.purge != (c.purge == 0 ? needs.reach : size_t(c.purge)) || p.embargo != size_t(c.embargo))
        return "purge or embargo";
    // The groups: back to back over the samples, sizes within one.
    if (p.group.size() != n || p.group.front().first != p.firstSample ||
        p.group.back().last != p.lastSample)
        return "groups cover the samples";
    for (size_t g = 0; g < n; ++g) {
        if (g > 0 && p.group[g].first != p.group[g - 1].last + 1) return "groups back to back";
        if (p.group[g].size() + 1 < p.group[0].size() || p.group[g].size() > p.group[0].size() + 1)
            return "group sizes";
        if (p.group[g].size() < needs.window) return "group shorter than the window";
    }
    std::vector<size_t> seenChoice;
    for (size_t s = 0; s < p.splits.size(); ++s) {
        const CpcvSplit& sp = p.splits[s];
        if (sp.testGroups.size() != k) return "test group count";
        if (!ascendingDisjoint(sp.train) || !ascendingDisjoint(sp.validation) ||
            !ascendingDisjoint(sp.test))
            return "ranges not ascending and disjoint";
        if (s > 0 && !(p.splits[s - 1].testGroups < sp.testGroups)) return "not lexicographic";
        const std::vector<int> r = roles(p, sp, bars);
        if (r[0] == -1) return "a sample in two parts";
        std::vector<bool> isTest(n, false);
        for (size_t i = 0; i < k; ++i) {
            isTest[sp.testGroups[i]] = true;
            if (!(sp.test[i] == p.group[sp.testGroups[i]])) return "test range is not its group";
        }
        // Every sample outside the file's samples belongs to nothing.
        for (size_t t = 0; t < bars; ++t)
            if (r[t] != 0 && (t < p.firstSample || t > p.lastSample)) return "outside samples";
        // Around each run of adjacent test groups a..b: exactly P dropped before, P + E after
        // (where the file allows), no training or validation sample inside.
        // The samples a split may train on: outside every run's purge, test and embargo.
        std::vector<bool> trainable(bars, false);
        for (size_t t = p.firstSample; t <= p.lastSample; ++t) trainable[t] = true;
        for (size_t g = 0; g < n; ++g) {
            if (!isTest[g]) continue;
            const size_t a = p.group[g].first, b = p.group[g].last;
            for (size_t t = a >= p.purge ? a - p.purge : 0; t <= b + p.purge + p.embargo; ++t)
                if (t < bars) trainable[t] = false;
        }
        size_t trainCount = 0;
        for (size_t t = 0; t < bars; ++t) {
            trainCount += trainable[t];
            if ((r[t] == 1 || r[t] == 2) && !trainable[t]) return "trains on a dropped sample";
            if (c.earlyStoppingShare == 0 && trainable[t] && r[t] != 1) return "sample not fitted";
        }
        for (size_t g = 0; g < n; ++g) {
            if (!isTest[g] || (g > 0 && isTest[g - 1])) continue;
            size_t h = g;
            while (h + 1 < n && isTest[h + 1]) ++h;
            const size_t a = p.group[g].first, b = p.group[h].last;
            for (size_t t = a; t <= b; ++t)
                if (r[t] != 3) return "a test group's sample is not tested";
            for (size_t t = p.firstSample; t <= p.lastSample; ++t) {
                if (r[t] != 1 && r[t] != 2) continue;
                if (!(t + p.purge < a || t > b + p.purge + p.embargo)) return "purge/embargo";
                if (t < a && t + needs.reach >= a) return "a training label reads a test bar";
            }
            // The gap is exactly that wide: the bar just outside it trains (or validates), unless
            // it is the file's edge or another test run.
            if (a >= p.firstSample + p.purge + 1) {
                const size_t before = a - p.purge - 1;
                bool otherTest = false;  // an earlier run whose purge and embargo reach here
                for (size_t t = before >= p.purge + p.embargo ? before - p.purge - p.embargo : 0;
                     t <= before; ++t)
                    otherTest |= r[t] == 3;
                if (!trainable[before] && !otherTest) return "purge wider";
                for (size_t t = before + 1; t < a; ++t)
                    if (r[t] != 0) return "purge narrower";
            }
            const size_t after = b + p.purge + p.embargo + 1;
            if (after <= p.lastSample) {
                bool otherTest = false;
                // (a later run whose purge before it reaches here)
                for (size_t t = b + 1; t <= std::min(after + p.purge, bars - 1); ++t)
                    otherTest |= r[t] == 3;
                if (!otherTest) {
                    if (!trainable[after]) return "purge and embargo wider";
                    for (size_t t = b + 1; t < after; ++t)
                        if (r[t] != 0) return "purge and embargo narrower";
                }
            }
        }
        // The early-stopping validation: the newest share of the training samples, the purge
        // before it, nothing fitted after it.
        if (c.earlyStoppingShare > 0) {
            const size_t want = std::max<size_t>(
                1, size_t(std::llround(c.earlyStoppingShare * double(trainCount))));
            if (sp.validationSamples() != want) return "validation share";
            const size_t vFirst = sp.validation.front().first;
            for (size_t t = p.firstSample; t <= p.lastSample; ++t) {
                if (r[t] == 1 && !(t + p.purge < vFirst)) return "fitted too close to validation";
                if (r[t] == 2 && t < vFirst) return "validation not newest";
            }
            size_t fitted = 0, older = 0;  // every trainable sample before the purge is fitted
            for (size_t t = p.firstSample; t + p.purge < vFirst; ++t) {
                fitted += r[t] == 1;
                older += trainable[t];
            }
            if (fitted != older || fitted == 0) return "fitted samples lost";
            size_t validating = 0;  // and every trainable sample from vFirst on validates
            for (size_t t = vFirst; t < bars; ++t) validating += trainable[t];
            if (validating != want) return "validation not the newest trainable samples";
        } else if (!sp.validation.empty()) {
            return "validation without a share";
        }
        seenChoice.push_back(s);
    }
    // Paths: every group once per path, from a split that tests it; every split's test groups
    // on exactly one path each.
    std::vector<std::vector<int>> used(p.splits.size(), std::vector<int>(n, 0));
    for (const std::vector<size_t>& path : p.paths) {
        if (path.size() != n) return "path length";
        std::vector<size_t> testedTimes(bars, 0);
        for (size_t g = 0; g < n; ++g) {
            const CpcvSplit& sp = p.splits.at(path[g]);
            if (std::find(sp.testGroups.begin(), sp.testGroups.end(), g) == sp.testGroups.end())
                return "path takes a group its split does not test";
            ++used[path[g]][g];
            for (size_t t = p.group[g].first; t <= p.group[g].last; ++t) ++testedTimes[t];
        }
        for (size_t t = 0; t < bars; ++t)
            if (testedTimes[t] != (t >= p.firstSample && t <= p.lastSample ? 1u : 0u))
                return "a sample not tested exactly once on a path";
    }
    for (size_t s = 0; s < p.splits.size(); ++s)
        for (size_t g = 0; g < n; ++g) {
            const bool tests =
                std::find(p.splits[s].testGroups.begin(), p.splits[s].testGroups.end(), g) !=
                p.splits[s].testGroups.end();
            if (used[s][g] != (tests ? 1 : 0)) return "a split's test group not on one path";
        }
    return "";
}

}  // namespace

TEST(CpcvPlan, binomial) {
    EXPECT_EQ(binomial(6, 2), size_t(15));
    EXPECT_EQ(binomial(16, 8), size_t(12870));
    EXPECT_EQ(binomial(5, 0), size_t(1));
    EXPECT_EQ(binomial(3, 4), size_t(0));
    EXPECT_EQ(binomial(100, 50), SIZE_MAX);  // saturates
}

TEST(CpcvPlan, sixGroupsTwoTestGroupsByHand) {
    ValidationConfig c = cpcv(6, 2);
    c.embargo = 2;  // purge 0: the label horizon, 1
    c.earlyStoppingShare = 0;
    // 125 bars, window 5, reach 1: samples 4..123 (120), groups of 20: 4..23, 24..43, ...
    const CpcvPlan p = planCpcv(c, 125, needsOf(0, 5, 1));
    ASSERT_TRUE(p.ok()) << p.error;
    ASSERT_EQ(p.splits.size(), size_t(15));
    ASSERT_EQ(p.paths.size(), size_t(5));
    EXPECT_EQ(p.purge, size_t(1));
    EXPECT_EQ(p.group[1], (BarRange{24, 43}));
    EXPECT_EQ(p.group[5], (BarRange{104, 123}));
    // Split 1 tests groups 0 and 1 (4..43): training from 44 + purge 1 + embargo 2 = 47.
    EXPECT_EQ(p.splits[0].testGroups, (std::vector<size_t>{0, 1}));
    ASSERT_EQ(p.splits[0].train.size(), size_t(1));
    EXPECT_EQ(p.splits[0].train[0], (BarRange{47, 123}));
    // Split 7 tests groups 1 and 3 (24..43, 64..83): training 4..22, 47..62, 87..123.
    EXPECT_EQ(p.splits[6].testGroups, (std::vector<size_t>{1, 3}));
    EXPECT_EQ(p.splits[6].train, (std::vector<BarRange>{{4, 22}, {47, 62}, {87, 123}}));
    // Path 1 takes every group's first test: group 0 from split 1 ({0,1}), group 1 from split 1,
    // group 2 from split 2 ({0,2}), group 3 from split 3, 4 from 4, 5 from 5; path 5 takes the
    // last: group 0 from split 5 ({0,5}), group 5 from split 15 ({4,5}).
    EXPECT_EQ(p.paths[0], (std::vector<size_t>{0, 0, 1, 2, 3, 4}));
    EXPECT_EQ(p.paths[4][0], size_t(4));
    EXPECT_EQ(p.paths[4][5], size_t(14));
    // Where group 3's outputs start in split 7's test outputs (after group 1's 20).
    EXPECT_EQ(p.testOffset(6, 3), size_t(20));
    // With a 20 % early-stopping share, split 7's 19 + 16 + 37 = 72 training samples give 14
    // (the newest: 110..123) to the validation and fit 4..22, 47..62, 87..108.
    c.earlyStoppingShare = 0.2;
    const CpcvPlan q = planCpcv(c, 125, needsOf(0, 5, 1));
    ASSERT_TRUE(q.ok()) << q.error;
    EXPECT_EQ(q.splits[6].validation, (std::vector<BarRange>{{110, 123}}));
    EXPECT_EQ(q.splits[6].train, (std::vector<BarRange>{{4, 22}, {47, 62}, {87, 108}}));
}

TEST(CpcvPlan, propertiesOverRandomSettings) {
    std::mt19937 rng(20261128);
    auto pick = [&](int lo, int hi) { return int(rng() % unsigned(hi - lo + 1)) + lo; };
    int usable = 0, withShare = 0, withEmbargo = 0;
    for (int round = 0; round < 1500; ++round) {
        const size_t bars = size_t(pick(20, 1500));
        const BarNeeds needs =
            needsOf(size_t(pick(0, 30)), size_t(pick(2, 20)), size_t(pick(1, 2)));
        const int n = pick(2, 10);
        ValidationConfig c = cpcv(n, pick(1, n));  // k = n now and then: refused
        c.purge = pick(0, 2) == 0 ? 0 : pick(1, 8);
        c.embargo = pick(0, 1) ? 0 : pick(0, 12);
        c.earlyStoppingShare = pick(0, 3) == 0 ? 0.0 : pick(1, 50) / 100.0;
        const CpcvPlan p = planCpcv(c, bars, needs);
        if (!p.ok()) {
            EXPECT_TRUE(startsWith(p.error, "validation.") || startsWith(p.error, "data: too few"))
                << p.error;
            EXPECT_TRUE(p.splits.empty() && p.paths.empty());
            continue;
        }
        ++usable;
        withShare += c.earlyStoppingShare > 0;
        withEmbargo += c.embargo > 0;
        const std::string broken = brokenProperty(p, c, bars, needs);
        ASSERT_EQ(broken, "") << "round " << round << ": bars " << bars << " firstBar "
                              << needs.firstBar << " reach " << needs.reach << ", "
                              << c.toJson().dump();
    }
    EXPECT_GT(usable, 400);
    EXPECT_GT(withShare, 200);
    EXPECT_GT(withEmbargo, 150);
}

TEST(CpcvPlan, errorsNameTheSetting) {
    const BarNeeds five = needsOf(0, 5, 2), wide = needsOf(0, 30, 1);
    ValidationConfig c = cpcv(6, 6);
    EXPECT_TRUE(startsWith(planCpcv(c, 2000, five).error,
                           "validation.testGroups: 6 test groups of 6 groups"))
        << planCpcv(c, 2000, five).error;
    c = cpcv(20, 10);  // 184,756 splits
    EXPECT_TRUE(startsWith(planCpcv(c, 20000, five).error,
                           "validation.groups: 20 groups with 10 test groups make 184756 splits"))
        << planCpcv(c, 20000, five).error;
    c = cpcv(6, 2);  // groups of 170 / 6 = 28 samples, less than the window of 30
    EXPECT_TRUE(startsWith(planCpcv(c, 200, wide).error,
                           "validation.groups: 6 groups of the file's 170 samples hold 28 "
                           "samples each, fewer than data.window (30 bars)"))
        << planCpcv(c, 200, wide).error;
    c.purge = 1;
    EXPECT_TRUE(startsWith(planCpcv(c, 2000, five).error,
                           "validation.purge: 1 bars is less than the label horizon (2"));
    c = cpcv(3, 2);
    c.embargo = 700;  // groups of 665: split 1 (groups 0, 1) leaves nothing after its embargo
    EXPECT_TRUE(startsWith(planCpcv(c, 2000, five).error,
                           "validation.purge: split 1/3 has no "
                           "training samples left"))
        << planCpcv(c, 2000, five).error;
    c = cpcv(6, 2);
    c.earlyStoppingShare = 0.9;  // 2 groups of training, 1 purge bar: still fits
    EXPECT_TRUE(planCpcv(c, 2000, five).ok()) << planCpcv(c, 2000, five).error;
    c = cpcv(3, 2);
    c.earlyStoppingShare = 0.9;
    c.embargo = 0;
    const CpcvPlan tight = planCpcv(c, 12, needsOf(0, 2, 1));  // samples 1..10, groups of 3
    EXPECT_TRUE(startsWith(tight.error, "validation.earlyStoppingShare: split ")) << tight.error;
    EXPECT_TRUE(startsWith(planCpcv(c, 3, five).error, "data: too few bars"))
        << planCpcv(c, 3, five).error;
}
