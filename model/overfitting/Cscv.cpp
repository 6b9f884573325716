#include "model/overfitting/Cscv.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace nnwb {

namespace {

// A block's (or a union of blocks') returns summarised: count, mean and the sum of squared
// deviations from the mean, combined exactly (Chan, Golub and LeVeque's pairwise update).
struct Moments {
    double n = 0, mean = 0, m2 = 0;
    void add(const Moments& o) {
        if (o.n == 0) return;
        const double total = n + o.n, delta = o.mean - mean;
        mean += delta * o.n / total;
        m2 += o.m2 + delta * delta * n * o.n / total;
        n = total;
    }
    double sharpe() const {
        if (n < 2 || !(m2 > 0)) return 0.0;
        return mean / std::sqrt(m2 / (n - 1));
    }
};

Moments momentsOf(const double* r, size_t count) {
    Moments m;
    m.n = double(count);
    if (count == 0) return m;
    double sum = 0;
    for (size_t i = 0; i < count; ++i) sum += r[i];
    m.mean = sum / double(count);
    for (size_t i = 0; i < count; ++i) m.m2 += (r[i] - m.mean) * (r[i] - m.mean);
    return m;
}

double binomial(int n, int k) {
    double c = 1;
    for (int i = 1; i <= k; ++i) c = c * double(n - k + i) / double(i);
    return std::round(c);
}

void checkInput(const std::vector<std::vector<double>>& returns, int blocks) {
    if (blocks < 2 || blocks % 2 != 0 || blocks > kCscvMaxBlocks)
        throw CscvError("CSCV blocks S = " + std::to_string(blocks) + ": must be even, 2 to " +
                        std::to_string(kCscvMaxBlocks));
    if (returns.size() < 2)
        throw CscvError("CSCV needs the returns of at least 2 trials (" +
                        std::to_string(returns.size()) + " given)");
    const size_t bars = returns.front().size();
    for (size_t t = 0; t < returns.size(); ++t) {
        if (returns[t].size() != bars)
            throw CscvError("CSCV: trial " + std::to_string(t) + " has " +
                            std::to_string(returns[t].size()) + " returns, trial 0 has " +
                            std::to_string(bars));
        for (size_t i = 0; i < bars; ++i)
            if (!std::isfinite(returns[t][i]))
                throw CscvError("CSCV: trial " + std::to_string(t) + "'s return " +
                                std::to_string(i) + " is not finite");
    }
    if (bars / size_t(blocks) < 2)
        throw CscvError("CSCV: " + std::to_string(bars) + " bars in S = " + std::to_string(blocks) +
                        " blocks leave a block fewer than 2 bars");
    if (double(returns.size()) * binomial(blocks, blocks / 2) > 2e7)
        throw CscvError("CSCV: " + std::to_string(returns.size()) + " trials times C(" +
                        std::to_string(blocks) + ", " + std::to_string(blocks / 2) +
                        ") splits is more than 20 million Sharpe ratios; choose a smaller S");
}

// Sharpe ratios equal up to rounding: trials with the same trades have returns that differ
// only in their last bits (the equity's sums in another order), and such differences must not
// rank them.
bool tied(double a, double b) {
    return std::abs(a - b) <= kCscvTieTolerance * std::max(std::abs(a), std::abs(b));
}

// The mean rank (1 = smallest) of values[w] among `values`, equal ones (tied) sharing it.
double midRank(const std::vector<double>& values, size_t w) {
    size_t below = 0, equal = 0;
    for (double v : values) {
        const bool same = tied(v, values[w]);
        below += !same && v < values[w];
        equal += same;
    }
    return double(below) + (double(equal) + 1.0) / 2.0;
}

// The first of the largest values (tied ones equal).
size_t firstBest(const std::vector<double>& values) {
    const double top = *std::max_element(values.begin(), values.end());
    size_t i = 0;
    while (!tied(values[i], top)) ++i;
    return i;
}

void fitDegradation(CscvResult& r) {
    const double n = double(r.splits.size());
    double mx = 0, my = 0;
    for (const CscvSplit& s : r.splits) {
        mx += s.inSample;
        my += s.outOfSample;
    }
    mx /= n;
    my /= n;
    double sxx = 0, sxy = 0, syy = 0;
    for (const CscvSplit& s : r.splits) {
        sxx += (s.inSample - mx) * (s.inSample - mx);
        sxy += (s.inSample - mx) * (s.outOfSample - my);
        syy += (s.outOfSample - my) * (s.outOfSample - my);
    }
    const double nan = std::numeric_limits<double>::quiet_NaN();
    r.slope = sxx > 0 ? sxy / sxx : nan;
    r.intercept = sxx > 0 ? my - r.slope * mx : nan;
    r.rSquared = sxx > 0 ? (syy > 0 ? sxy * sxy / (sxx * syy) : 1.0) : nan;
}

CscvDominance dominanceOf(std::vector<double> winners, std::vector<double> all) {
    std::sort(winners.begin(), winners.end());
    std::sort(all.begin(), all.end());
    const double nw = double(winners.size()), na = double(all.size());
    CscvDominance d;
    size_t iw = 0, ia = 0;
    double sd2 = 0, gap = -1, prevX = 0, prevDiff = 0;
    bool first = true;
    while (iw < winners.size() || ia < all.size()) {
        const double x = std::min(iw < winners.size() ? winners[iw] : HUGE_VAL,
                                  ia < all.size() ? all[ia] : HUGE_VAL);
        if (!first) sd2 += prevDiff * (x - prevX);  // F - F* was constant on [prevX, x)
        d.secondOrderMin = first ? 0.0 : std::min(d.secondOrderMin, sd2);
        while (iw < winners.size() && winners[iw] == x) ++iw;
        while (ia < all.size() && all[ia] == x) ++ia;
        const double fw = double(iw) / nw, fa = double(ia) / na;
        gap = std::max(gap, fw - fa);
        prevDiff = fa - fw;
        prevX = x;
        first = false;
    }
    const double range = all.empty() ? 0.0 : all.back() - all.front();
    d.area = sd2;
    d.firstOrderGap = std::max(gap, 0.0);
    d.firstOrder = d.firstOrderGap <= 1e-12;
    d.secondOrder = d.secondOrderMin >= -1e-12 * std::max(range, 1e-300);
    return d;
}

}  // namespace

double cscvSharpe(const std::vector<double>& returns) {
    return momentsOf(returns.data(), returns.size()).sharpe();
}

CscvResult cscv(const std::vector<std::vector<double>>& returns, int blocks) {
    checkInput(returns, blocks);
    CscvResult r;
    r.blocks = blocks;
    r.trials = returns.size();
    r.bars = returns.front().size();
    r.minBlockBars = r.bars / size_t(blocks);
    const size_t n = r.trials, S = size_t(blocks), half = S / 2;
    // moments[t][s]: trial t's returns in block s.
    std::vector<std::vector<Moments>> moments(n, std::vector<Moments>(S));
    for (size_t t = 0; t < n; ++t)
        for (size_t s = 0; s < S; ++s) {
            const size_t from = s * r.bars / S, to = (s + 1) * r.bars / S;
            moments[t][s] = momentsOf(returns[t].data() + from, to - from);
        }
    std::vector<int> pick(half);
    for (size_t i = 0; i < half; ++i) pick[i] = int(i);
    std::vector<double> inSample(n), outOfSample(n), allOut;
    allOut.reserve(size_t(binomial(blocks, blocks / 2)) * n);
    for (;;) {
        std::vector<bool> in(S, false);
        for (int b : pick) in[size_t(b)] = true;
        for (size_t t = 0; t < n; ++t) {
            Moments is, oos;
            for (size_t s = 0; s < S; ++s) (in[s] ? is : oos).add(moments[t][s]);
            inSample[t] = is.sharpe();
            outOfSample[t] = oos.sharpe();
        }
        CscvSplit sp;
        sp.inSampleBlocks = pick;
        sp.winner = firstBest(inSample);
        sp.inSample = inSample[sp.winner];
        sp.outOfSample = outOfSample[sp.winner];
        sp.rank = midRank(outOfSample, sp.winner);
        sp.relativeRank = sp.rank / double(n + 1);
        sp.logit = std::log(sp.relativeRank / (1.0 - sp.relativeRank));
        r.splits.push_back(std::move(sp));
        allOut.insert(allOut.end(), outOfSample.begin(), outOfSample.end());
        // The next combination in lexicographic order.
        int i = int(half) - 1;
        while (i >= 0 && pick[size_t(i)] == int(S - half) + i) --i;
        if (i < 0) break;
        ++pick[size_t(i)];
        for (size_t j = size_t(i) + 1; j < half; ++j) pick[j] = pick[j - 1] + 1;
    }
    size_t overfit = 0, losses = 0;
    std::vector<double> winnersOut;
    for (const CscvSplit& s : r.splits) {
        overfit += s.logit <= 0;
        losses += s.outOfSample < 0;
        winnersOut.push_back(s.outOfSample);
    }
    r.pbo = double(overfit) / double(r.splits.size());
    r.probabilityOfLoss = double(losses) / double(r.splits.size());
    fitDegradation(r);
    r.dominance = dominanceOf(std::move(winnersOut), std::move(allOut));
    return r;
}

}  // namespace nnwb
