#include "model/sweep/Importance.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "model/sweep/ParzenEstimator.h"

namespace nnwb::sweep {

namespace {

// The bin of each trial for parameter p: one per categorical value and one for "inactive",
// numeric values in equal-count bins (2 to 10, equal values in one bin).
std::vector<int> trialBins(const ParamDef& p, const std::vector<const TrialRecord*>& done) {
    const size_t n = done.size();
    std::vector<int> bin(n, -1);
    std::vector<std::pair<double, size_t>> numeric;
    std::map<std::string, int> labels;
    for (size_t i = 0; i < n; ++i) {
        auto it = done[i]->params.find(p.name);
        if (it == done[i]->params.end() || !p.admits(*it)) {
            bin[i] = labels.emplace("(inactive)", int(labels.size())).first->second;
        } else if (p.kind == ParamKind::Categorical) {
            bin[i] = labels.emplace(it->dump(), int(labels.size())).first->second;
        } else {
            numeric.push_back({ParzenEstimator::toInternal(p, *it), i});
        }
    }
    if (!numeric.empty()) {
        std::sort(numeric.begin(), numeric.end());
        const size_t k = std::max<size_t>(2, std::min<size_t>(10, numeric.size() / 5));
        const int first = int(labels.size());
        for (size_t r = 0; r < numeric.size(); ++r) {
            // Equal-count bins; equal values stay in one bin.
            size_t b = r * k / numeric.size();
            if (r > 0 && numeric[r].first == numeric[r - 1].first)
                b = size_t(bin[numeric[r - 1].second] - first);
            bin[numeric[r].second] = first + int(b);
        }
    }
    return bin;
}

// The additive model y = mean + sum_j f_j(bin_j) by backfitting (30 passes, each f_j the mean
// of the partial residual per bin, centred): f[j][i] for parameter j and trial i.
std::vector<std::vector<double>> backfit(const std::vector<std::vector<int>>& bins,
                                         const std::vector<const TrialRecord*>& done, double mean) {
    const size_t P = bins.size(), n = done.size();
    std::vector<std::vector<double>> f(P, std::vector<double>(n, 0.0));
    for (int pass = 0; pass < 30; ++pass) {
        for (size_t j = 0; j < P; ++j) {
            std::map<int, std::pair<double, int>> sums;  // bin -> (sum, count)
            for (size_t i = 0; i < n; ++i) {
                double r = *done[i]->value - mean;
                for (size_t l = 0; l < P; ++l)
                    if (l != j) r -= f[l][i];
                sums[bins[j][i]].first += r;
                sums[bins[j][i]].second += 1;
            }
            double centre = 0.0;
            for (size_t i = 0; i < n; ++i) {
                const auto& sc = sums[bins[j][i]];
                f[j][i] = sc.first / sc.second;
                centre += f[j][i] / double(n);
            }
            for (double& v : f[j]) v -= centre;
        }
    }
    return f;
}

}  // namespace

std::vector<ParamImportance> parameterImportance(const SearchSpace& space, const History& trials) {
    std::vector<const TrialRecord*> done;
    for (const TrialRecord& t : trials)
        if (t.state == TrialState::Complete && t.value) done.push_back(&t);
    std::vector<ParamImportance> out;
    const size_t n = done.size();
    if (n < 4) return out;
    double mean = 0.0;
    for (const TrialRecord* t : done) mean += *t->value / double(n);
    double ssTotal = 0.0;
    for (const TrialRecord* t : done) ssTotal += (*t->value - mean) * (*t->value - mean);
    std::vector<std::vector<int>> bins;  // per parameter, the bin of each trial
    for (const ParamDef& p : space.params()) bins.push_back(trialBins(p, done));
    // Each component's sum of squares against the residual mean square of the whole model.
    const size_t P = bins.size();
    const std::vector<std::vector<double>> f = backfit(bins, done, mean);
    double ssResid = 0.0, dfModel = 0.0;
    std::vector<double> levels(P);
    for (size_t j = 0; j < P; ++j) {
        std::map<int, int> distinct;
        for (int b : bins[j]) distinct[b] += 1;
        levels[j] = double(distinct.size());
        dfModel += levels[j] - 1;
    }
    for (size_t i = 0; i < n; ++i) {
        double r = *done[i]->value - mean;
        for (size_t j = 0; j < P; ++j) r -= f[j][i];
        ssResid += r * r;
    }
    const double dfResid = double(n) - 1 - dfModel;
    const double msResid = dfResid > 0 ? ssResid / dfResid : 0.0;
    for (size_t j = 0; j < P; ++j) {
        double ss = 0.0;
        for (double v : f[j]) ss += v * v;
        double omega = 0.0;
        if (ssTotal > 0 && levels[j] > 1)
            omega = std::max(0.0, (ss - (levels[j] - 1) * msResid) / (ssTotal + msResid));
        out.push_back({space.params()[j].name, std::min(1.0, omega), int(levels[j])});
    }
    std::stable_sort(
        out.begin(), out.end(),
        [](const ParamImportance& a, const ParamImportance& b) { return a.index > b.index; });
    return out;
}

}  // namespace nnwb::sweep
