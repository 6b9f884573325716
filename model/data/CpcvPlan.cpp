#include "model/data/CpcvPlan.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace nnwb {

namespace {

constexpr size_t kMaxSplits = 1000;

std::string str(size_t x) {
    return std::to_string(x);
}

CpcvPlan failed(CpcvPlan p, std::string message) {
    p.error = std::move(message);
    p.splits.clear();
    p.paths.clear();
    return p;
}

size_t samplesIn(const std::vector<BarRange>& ranges) {
    size_t n = 0;
    for (const BarRange& r : ranges) n += r.size();
    return n;
}

// The settings' own limits, before any split is cut ("" when they hold).
std::string settingsProblem(const ValidationConfig& c, const BarNeeds& needs, size_t samples) {
    const size_t n = size_t(c.groups), k = size_t(c.testGroups);
    if (k >= n)
        return "validation.testGroups: " + str(k) + " test groups of " + str(n) +
               " groups (validation.groups) leave no group to train on; fewer test groups "
               "than groups";
    if (binomial(n, k) > kMaxSplits)
        return "validation.groups: " + str(n) + " groups with " + str(k) + " test groups make " +
               (binomial(n, k) == SIZE_MAX ? std::string("too many") : str(binomial(n, k))) +
               " splits, more than " + str(kMaxSplits) + "; fewer groups or test groups";
    const size_t smallest = samples / n;
    const size_t least = std::max<size_t>({needs.window, needs.reach, 1});
    if (smallest < least)
        return "validation.groups: " + str(n) + " groups of the file's " + str(samples) +
               " samples hold " + str(smallest) + " samples each, fewer than " +
               (least == needs.window ? "data.window (" + str(least) + " bars)"
                                      : "the label horizon (" + str(least) + " bars)") +
               "; fewer groups or a longer file";
    return "";
}

// The k-of-n choices in lexicographic order.
std::vector<std::vector<size_t>> choices(size_t n, size_t k) {
    std::vector<std::vector<size_t>> out;
    std::vector<size_t> c(k);
    for (size_t i = 0; i < k; ++i) c[i] = i;
    while (true) {
        out.push_back(c);
        size_t i = k;
        while (i > 0 && c[i - 1] == n - k + i - 1) --i;
        if (i == 0) return out;
        ++c[i - 1];
        for (size_t j = i; j < k; ++j) c[j] = c[j - 1] + 1;
    }
}

// The training samples of a split: the file's samples less, around every run of adjacent test
// groups a..b, the bars a-P..b+P+E (the purge before, the test, the purge and embargo after).
std::vector<BarRange> trainingBlocks(const CpcvPlan& p, const std::vector<bool>& isTest) {
    std::vector<BarRange> dropped;
    for (size_t g = 0; g < p.groups; ++g) {
        if (!isTest[g]) continue;
        size_t h = g;
        while (h + 1 < p.groups && isTest[h + 1]) ++h;
        const size_t a = p.group[g].first, b = p.group[h].last;
        dropped.push_back({a >= p.firstSample + p.purge ? a - p.purge : p.firstSample,
                           std::min(p.lastSample, b + p.purge + p.embargo)});
        g = h;
    }
    std::vector<BarRange> blocks;
    size_t from = p.firstSample;
    for (const BarRange& d : dropped) {
        if (d.first > from) blocks.push_back({from, d.first - 1});
        from = d.last + 1;
    }
    if (from <= p.lastSample) blocks.push_back({from, p.lastSample});
    return blocks;
}

// Carves the newest `share` of the training samples as the split's early-stopping validation
// and keeps as fitted the samples more than the purge before it. "" or the problem.
std::string carveValidation(CpcvSplit& s, const std::vector<BarRange>& blocks, double share,
                            size_t purge, const std::string& split) {
    const size_t count = samplesIn(blocks);
    s.train = blocks;
    if (share <= 0) return "";
    size_t want = std::max<size_t>(1, size_t(std::llround(share * double(count))));
    for (size_t i = blocks.size(); i-- > 0 && want > 0;) {
        const size_t take = std::min(want, blocks[i].size());
        s.validation.insert(s.validation.begin(), {blocks[i].last + 1 - take, blocks[i].last});
        want -= take;
    }
    const size_t validationFirst = s.validation.front().first;
    s.train.clear();
    for (const BarRange& b : blocks) {
        if (b.first + purge >= validationFirst) break;
        s.train.push_back({b.first, std::min(b.last, validationFirst - 1 - purge)});
    }
    if (s.train.empty())
        return "validation.earlyStoppingShare: " + split + "'s training samples (" + str(count) +
               ") leave none to fit after its early-stopping validation (" +
               str(s.validationSamples()) + ") and the purge (" + str(purge) + " bars)";
    return "";
}

}  // namespace

size_t CpcvSplit::trainSamples() const {
    return samplesIn(train);
}
size_t CpcvSplit::validationSamples() const {
    return samplesIn(validation);
}
size_t CpcvSplit::testSamples() const {
    return samplesIn(test);
}

size_t CpcvPlan::testOffset(size_t s, size_t g) const {
    size_t offset = 0;
    const CpcvSplit& split = splits.at(s);
    for (size_t i = 0; i < split.testGroups.size() && split.testGroups[i] < g; ++i)
        offset += split.test[i].size();
    return offset;
}

size_t binomial(size_t n, size_t k) {
    if (k > n) return 0;
    k = std::min(k, n - k);
    size_t r = 1;
    for (size_t i = 1; i <= k; ++i) {
        const size_t top = n - k + i;
        if (r > SIZE_MAX / top) return SIZE_MAX;
        r = r * top / i;  // exact: r * top is C(n-k+i, i) * i
    }
    return r;
}

CpcvPlan planCpcv(const ValidationConfig& c, size_t bars, const BarNeeds& needs,
                  const std::string& name) {
    CpcvPlan p;
    p.groups = size_t(std::max(c.groups, 0));
    p.testGroups = size_t(std::max(c.testGroups, 0));
    if (bars < needs.minimum) return failed(p, tooFewBarsMessage(name, bars, needs));
    p.reach = needs.reach;
    p.firstSample = needs.firstBar;
    p.lastSample = bars - 1 - needs.reach;
    p.purge = c.purge == 0 ? needs.reach : size_t(c.purge);
    p.embargo = size_t(c.embargo);
    if (p.purge < needs.reach)
        return failed(p, "validation.purge: " + str(size_t(c.purge)) +
                             " bars is less than the label horizon (" + str(needs.reach) +
                             " bars after a sample that its fractal label reads)");
    const size_t samples = p.lastSample - p.firstSample + 1;
    const std::string problem = settingsProblem(c, needs, samples);
    if (!problem.empty()) return failed(p, problem);
    for (size_t g = 0; g < p.groups; ++g)  // sizes differ by at most one
        p.group.push_back({p.firstSample + g * samples / p.groups,
                           p.firstSample + (g + 1) * samples / p.groups - 1});
    const std::vector<std::vector<size_t>> all = choices(p.groups, p.testGroups);
    std::vector<std::vector<size_t>> occurrences(p.groups);
    for (size_t s = 0; s < all.size(); ++s) {
        const std::string split = "split " + str(s + 1) + "/" + str(all.size());
        CpcvSplit sp;
        sp.testGroups = all[s];
        std::vector<bool> isTest(p.groups, false);
        for (size_t g : sp.testGroups) {
            isTest[g] = true;
            sp.test.push_back(p.group[g]);
            occurrences[g].push_back(s);
        }
        const std::vector<BarRange> blocks = trainingBlocks(p, isTest);
        if (blocks.empty())
            return failed(p, "validation.purge: " + split +
                                 " has no training samples left after the purge (" + str(p.purge) +
                                 " bars) and embargo (" + str(p.embargo) +
                                 " bars) around its test groups");
        const std::string why = carveValidation(sp, blocks, c.earlyStoppingShare, p.purge, split);
        if (!why.empty()) return failed(p, why);
        p.splits.push_back(std::move(sp));
    }
    const size_t pathCount = binomial(p.groups - 1, p.testGroups - 1);  // C(N,k)·k/N
    p.paths.assign(pathCount, std::vector<size_t>(p.groups));
    for (size_t g = 0; g < p.groups; ++g)
        for (size_t path = 0; path < pathCount; ++path) p.paths[path][g] = occurrences[g][path];
    return p;
}

}  // namespace nnwb
