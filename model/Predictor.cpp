#include "model/Predictor.h"

#include <algorithm>
#include <cmath>

#include "compute/BackendRegistry.h"
#include "model/NetworkWeights.h"
#include "model/data/BarImporter.h"
#include "model/data/DataPipeline.h"
#include "model/data/DataSummary.h"
#include "model/data/Features.h"
#include "model/data/Fractals.h"
#include "model/data/Normalization.h"

namespace nnwb {

namespace {

std::string nameOf(const BarSeries& bars) {
    return bars.source.empty() ? std::string("data") : baseName(bars.source);
}

}  // namespace

size_t firstPredictableBar(const ModelBundle& b) {
    return barsNeeded(b.data).firstBar;
}

std::string checkBarsForBundle(const ModelBundle& b, const BarSeries& bars) {
    const std::string name = nameOf(bars);
    if (b.usesVolume() && !bars.hasVolume && !bars.empty())
        return name + ": the model uses tick volume (feature tickVolume), but the file has no " +
               "volume column";
    if (b.timeframe > 0 && bars.size() >= 2 && bars.timeframe != b.timeframe)
        return name + ": the bars are " + timeframeName(bars.timeframe) + " (" +
               std::to_string(bars.timeframe) + " s apart), but the model was trained on " +
               timeframeName(b.timeframe) + " bars (" + std::to_string(b.timeframe) + " s)";
    const BarNeeds needs = barsNeeded(b.data);
    if (bars.size() < needs.minimum) return tooFewBarsMessage(name, bars.size(), needs);
    return "";
}

PredictionInputs buildPredictionInputs(const ModelBundle& b, const BarSeries& bars, int64_t from,
                                       int64_t to) {
    const std::string problem = checkBarsForBundle(b, bars);
    if (!problem.empty()) throw PredictionInputError(problem);
    const size_t n = bars.size();
    const size_t reach = static_cast<size_t>(fractalReach(b.data.fractalRule()));
    size_t first = firstPredictableBar(b);
    size_t last = n - 1;
    while (first <= last && bars.time[first] < from) ++first;
    while (last >= first && bars.time[last] > to) {
        if (last == 0) break;
        --last;
    }
    if (first > last || bars.time[first] < from || bars.time[last] > to)
        throw PredictionInputError(nameOf(bars) + ": no bar with a full window between " +
                                   formatBarTime(std::max(from, bars.time.front())) + " and " +
                                   formatBarTime(std::min(to, bars.time.back())) +
                                   " (the first is " +
                                   formatBarTime(bars.time[firstPredictableBar(b)]) + ")");
    FeatureMatrix m = computeFeatures(bars, b.data.features);
    const size_t w = static_cast<size_t>(b.data.window);
    for (size_t i = first + 1 - w; i <= last; ++i)
        for (int k = 0; k < m.features; ++k)
            if (!std::isfinite(m.at(i, k)))
                throw PredictionInputError(nameOf(bars) + ": feature " +
                                           m.names[static_cast<size_t>(k)] +
                                           " is not finite at bar " + std::to_string(i));
    PredictionInputs in;
    if (b.data.normalization == "zscore") {
        in.outOfRange = outOfRangeFeatures(m, b.stats, first + 1 - w, last);
        applyZScore(m, b.stats);
    }
    const std::vector<uint8_t> flags = fractalFlags(bars.high, bars.low, b.data.fractalRule());
    fillSamples(in.samples, m, flags, bars.time, first, last, b.data.window,
                b.data.positionalEncoding);
    for (size_t t = first; t <= last; ++t) {
        in.bar.push_back(t);
        const bool known = t + reach < n;
        in.labelled.push_back(known ? 1 : 0);
        in.label.push_back(known ? flags[t] : 0);
    }
    return in;
}

Predictor::Predictor(const ModelBundle& bundle, const std::string& deviceId) : bundle_(bundle) {
    backend_ = createBackend(deviceId);
    const Shape input{bundle_.data.window, bundle_.data.featureCount()};
    network_ = std::make_unique<Network>(Network::layersFromJson(bundle_.model), input);
    if (network_->outputShape().size() != 3)
        throw ModelBundleError("the model gives " + std::to_string(network_->outputShape().size()) +
                               " outputs, not the three [none, buy, sell]");
    network_->build(*backend_, bundle_.batchSize);
    try {
        writeWeights(*network_, bundle_.tensors);
    } catch (const std::invalid_argument& e) {
        throw ModelBundleError(e.what());
    }
    loss_ = std::make_unique<Loss>(*backend_, lossFromName(bundle_.loss), 3, bundle_.batchSize);
    x_ = backend_->alloc(input.size() * static_cast<size_t>(bundle_.batchSize));
    t_ = backend_->alloc(3 * static_cast<size_t>(bundle_.batchSize));
}

PredictionResult Predictor::run(const PredictionInputs& in, const BarSeries& bars,
                                const AfterBatch& afterBatch) {
    PredictionResult r;
    r.outOfRange = in.outOfRange;
    const SampleSet& s = in.samples;
    const size_t per = s.inputShape.size();
    const size_t batch = static_cast<size_t>(bundle_.batchSize);
    MetricsAccumulator acc(3);
    std::vector<float> pred(3 * batch), loss(batch);
    r.rows.reserve(s.size());
    // Batches from the first row, as the training run's evaluation pass batches its part.
    for (size_t first = 0; first < s.size(); first += batch) {
        const size_t count = std::min(batch, s.size() - first);
        const int c = static_cast<int>(count);
        backend_->upload(x_, s.input(first), count * per);
        backend_->upload(t_, s.target(first), count * 3);
        BufRef y = network_->forward(x_, c, false);
        loss_->compute(y, t_, c);
        backend_->download(loss_->prediction(y), pred.data(), count * 3);
        backend_->download(loss_->perSample(), loss.data(), count);
        for (size_t i = 0; i < count; ++i) {
            const size_t k = first + i;
            PredictionRow row;
            row.bar = in.bar[k];
            row.time = bars.time[row.bar];
            row.close = bars.close[row.bar];
            std::copy_n(pred.data() + 3 * i, 3, row.outputs.begin());
            for (int o = 1; o < 3; ++o)
                if (row.outputs[static_cast<size_t>(o)] >
                    row.outputs[static_cast<size_t>(row.signal)])
                    row.signal = o;
            row.labelled = in.labelled[k] != 0;
            if (row.labelled) {
                row.label = in.label[k];
                row.loss = loss[i];
                acc.add(row.outputs.data(), s.target(k), &row.loss, 1);
                ++r.labelled;
            }
            r.rows.push_back(row);
        }
        if (afterBatch) afterBatch(first + count, s.size());
    }
    r.metrics = acc.result();
    return r;
}

PredictionResult Predictor::predict(const BarSeries& bars, int64_t from, int64_t to) {
    return run(buildPredictionInputs(bundle_, bars, from, to), bars);
}

}  // namespace nnwb
