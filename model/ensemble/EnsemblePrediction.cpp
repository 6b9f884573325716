#include "model/ensemble/EnsemblePrediction.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "model/Metrics.h"

namespace nnwb {

namespace {

int argmax(const std::array<float, 3>& v) {
    int best = 0;
    for (int o = 1; o < 3; ++o)
        if (v[size_t(o)] > v[size_t(best)]) best = o;
    return best;
}

}  // namespace

CombinedOutput combineOutputs(const std::vector<std::array<float, 3>>& outputs) {
    if (outputs.empty()) throw std::invalid_argument("combineOutputs: no members");
    CombinedOutput c;
    const double n = double(outputs.size());
    for (size_t o = 0; o < 3; ++o) {
        double sum = 0;
        for (const auto& out : outputs) sum += out[o];
        c.mean[o] = float(sum / n);
    }
    c.signal = argmax(c.mean);
    const size_t s = size_t(c.signal);
    size_t votes = 0;
    double var = 0;
    for (const auto& out : outputs) {
        votes += argmax(out) == c.signal ? 1 : 0;
        const double d = double(out[s]) - double(c.mean[s]);
        var += d * d;
    }
    c.agreement = float(double(votes) / n);
    c.spread = float(std::sqrt(var / n));
    return c;
}

float combinedLoss(LossKind loss, const std::array<float, 3>& output, const float* target) {
    double l = 0;
    for (size_t o = 0; o < 3; ++o) {
        if (loss == LossKind::Mse) {
            const double e = double(output[o]) - double(target[o]);
            l += e * e / 3.0;
        } else if (target[o] != 0.0f) {
            l -= double(target[o]) * std::log(std::max(double(output[o]), 1e-30));
        }
    }
    return float(l);
}

PredictionResult combinePredictions(const std::vector<PredictionResult>& members,
                                    const PredictionInputs& in, LossKind loss) {
    if (members.empty()) throw std::invalid_argument("an ensemble without members");
    const size_t rows = members.front().rows.size();
    for (const PredictionResult& m : members)
        if (m.rows.size() != rows)
            throw std::invalid_argument("the members predicted different numbers of rows");
    PredictionResult r;
    r.outOfRange = members.front().outOfRange;
    r.members = members.size();
    r.rows.reserve(rows);
    MetricsAccumulator acc(3);
    std::vector<std::array<float, 3>> outs(members.size());
    for (size_t k = 0; k < rows; ++k) {
        PredictionRow row = members.front().rows[k];
        for (size_t m = 0; m < members.size(); ++m) {
            if (members[m].rows[k].bar != row.bar)
                throw std::invalid_argument("the members predicted different bars");
            outs[m] = members[m].rows[k].outputs;
        }
        const CombinedOutput c = combineOutputs(outs);
        row.outputs = c.mean;
        row.signal = c.signal;
        row.agreement = c.agreement;
        row.spread = c.spread;
        if (row.labelled) {
            row.loss = combinedLoss(loss, row.outputs, in.samples.target(k));
            acc.add(row.outputs.data(), in.samples.target(k), &row.loss, 1);
            ++r.labelled;
        }
        r.rows.push_back(row);
    }
    r.metrics = acc.result();
    return r;
}

EnsemblePredictor::EnsemblePredictor(const EnsembleBundle& bundle, const std::string& deviceId)
    : bundle_(bundle) {
    bundle_.check();
    for (size_t m = 0; m < bundle_.size(); ++m)
        members_.push_back(std::make_unique<Predictor>(bundle_.member(m), deviceId));
}

PredictionResult EnsemblePredictor::run(const PredictionInputs& in, const BarSeries& bars,
                                        const Predictor::AfterBatch& afterBatch) {
    std::vector<PredictionResult> results;
    const size_t n = members_.size();
    for (size_t m = 0; m < n; ++m) {
        Predictor::AfterBatch each;
        if (afterBatch)
            each = [&, m](size_t done, size_t total) { afterBatch(m * total + done, n * total); };
        results.push_back(members_[m]->run(in, bars, each));
    }
    return combinePredictions(results, in, lossFromName(bundle_.common.loss));
}

}  // namespace nnwb
