#include "model/sweep/ParzenEstimator.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace nnwb::sweep {

namespace {
double normCdf(double z) {
    return 0.5 * std::erfc(-z / std::sqrt(2.0));
}
constexpr double kLogSqrt2Pi = 0.91893853320467274178;
}  // namespace

double ParzenEstimator::toInternal(const ParamDef& def, const nlohmann::json& v) {
    switch (def.kind) {
        case ParamKind::LogFloat:
            return std::log(v.get<double>());
        case ParamKind::Categorical:
            return double(std::find(def.choices.begin(), def.choices.end(), v) -
                          def.choices.begin());
        default:
            return v.get<double>();
    }
}

nlohmann::json ParzenEstimator::fromInternal(const ParamDef& def, double x) {
    switch (def.kind) {
        case ParamKind::Int: {
            const long long i = std::llround((x - def.low) / def.step);
            return static_cast<long long>(def.low) +
                   def.step * std::min(std::max(0LL, i), def.count() - 1);
        }
        case ParamKind::Float:
            return std::min(std::max(x, def.low), def.high);
        case ParamKind::LogFloat:
            return std::min(std::max(std::exp(x), def.low), def.high);
        case ParamKind::Categorical:
            return def.choices[size_t(std::min<long long>(def.count() - 1, std::llround(x)))];
    }
    return nullptr;
}

ParzenEstimator::ParzenEstimator(const ParamDef& def, const std::vector<double>& obs,
                                 const std::vector<double>& weights, double priorWeight)
    : def_(def), categorical_(def.kind == ParamKind::Categorical) {
    weights_ = weights;
    weights_.push_back(priorWeight);
    const double total = std::accumulate(weights_.begin(), weights_.end(), 0.0);
    for (double& w : weights_) w /= total;
    if (categorical_) {
        const size_t n = def.choices.size();
        const double kernels = double(obs.size() + 1);
        for (double o : obs) {
            std::vector<double> row(n, priorWeight / kernels);
            row[size_t(o)] += 1.0;
            const double s = std::accumulate(row.begin(), row.end(), 0.0);
            for (double& r : row) r /= s;
            rows_.push_back(std::move(row));
        }
        rows_.emplace_back(n, 1.0 / double(n));
        return;
    }
    if (def.kind == ParamKind::Int) {
        low_ = def.low - 0.5 * def.step;
        high_ = def.low + def.step * (def.count() - 1) + 0.5 * def.step;
    } else if (def.kind == ParamKind::LogFloat) {
        low_ = std::log(def.low);
        high_ = std::log(def.high);
    } else {
        low_ = def.low;
        high_ = def.high;
    }
    const double range = std::max(high_ - low_, 1e-12);
    mus_ = obs;
    mus_.push_back(0.5 * (low_ + high_));  // the prior, last
    const size_t k = mus_.size();
    std::vector<size_t> order(k);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return mus_[a] < mus_[b]; });
    std::vector<double> ends{low_};
    for (size_t i : order) ends.push_back(mus_[i]);
    ends.push_back(high_);
    std::vector<double> sorted(k);
    for (size_t i = 0; i < k; ++i)
        sorted[i] = std::max(ends[i + 1] - ends[i], ends[i + 2] - ends[i + 1]);
    if (ends.size() >= 4) {  // consider_endpoints off: the end kernels use their inner gap
        sorted[0] = ends[2] - ends[1];
        sorted[k - 1] = ends[k] - ends[k - 1];
    }
    sigmas_.assign(k, 0.0);
    for (size_t i = 0; i < k; ++i) sigmas_[order[i]] = sorted[i];
    const double minSigma = range / std::min(100.0, 1.0 + double(k));
    for (double& s : sigmas_) s = std::min(std::max(s, minSigma), range);
    sigmas_[k - 1] = range;  // the prior's sigma
}

double ParzenEstimator::sample(Rng& rng) const {
    double u = rng.uniform(), acc = 0.0;
    size_t c = 0;
    for (; c + 1 < weights_.size(); ++c) {
        acc += weights_[c];
        if (u < acc) break;
    }
    if (categorical_) {
        const std::vector<double>& row = rows_[c];
        double v = rng.uniform(), a = 0.0;
        for (size_t i = 0; i < row.size(); ++i) {
            a += row[i];
            if (v < a) return double(i);
        }
        return double(row.size() - 1);
    }
    // Truncated normal by inverse transform over the kept part of the CDF.
    const double lo = normCdf((low_ - mus_[c]) / sigmas_[c]);
    const double hi = normCdf((high_ - mus_[c]) / sigmas_[c]);
    double x = mus_[c];
    for (int tries = 0; tries < 64; ++tries) {  // rejection, each try in the kept interval
        const double z = mus_[c] + sigmas_[c] * rng.normal();
        if (z >= low_ && z <= high_) {
            x = z;
            break;
        }
        if (hi - lo < 1e-12) break;
    }
    if (def_.kind == ParamKind::Int) return fromInternal(def_, x).get<double>();
    return x;
}

double ParzenEstimator::logPdf(double x) const {
    double p = 0.0;
    if (categorical_) {
        for (size_t c = 0; c < weights_.size(); ++c) p += weights_[c] * rows_[c][size_t(x)];
        return std::log(std::max(p, 1e-300));
    }
    if (def_.kind == ParamKind::Int) {  // the probability of the value's cell
        const double a = x - 0.5 * def_.step, b = x + 0.5 * def_.step;
        for (size_t c = 0; c < weights_.size(); ++c) {
            const double lo = normCdf((low_ - mus_[c]) / sigmas_[c]);
            const double hi = normCdf((high_ - mus_[c]) / sigmas_[c]);
            const double m =
                normCdf((b - mus_[c]) / sigmas_[c]) - normCdf((a - mus_[c]) / sigmas_[c]);
            p += weights_[c] * m / std::max(hi - lo, 1e-300);
        }
        return std::log(std::max(p, 1e-300));
    }
    double best = -INFINITY;
    std::vector<double> terms(weights_.size());
    for (size_t c = 0; c < weights_.size(); ++c) {
        const double z = (x - mus_[c]) / sigmas_[c];
        const double mass =
            normCdf((high_ - mus_[c]) / sigmas_[c]) - normCdf((low_ - mus_[c]) / sigmas_[c]);
        terms[c] = std::log(weights_[c]) - 0.5 * z * z - kLogSqrt2Pi - std::log(sigmas_[c]) -
                   std::log(std::max(mass, 1e-300));
        best = std::max(best, terms[c]);
    }
    double s = 0.0;
    for (double t : terms) s += std::exp(t - best);
    return best + std::log(s);
}

}  // namespace nnwb::sweep
