#include "model/data/DataPipeline.h"

#include <algorithm>
#include <cmath>

#include "model/data/BarFileCache.h"
#include "model/data/BarImporter.h"
#include "model/data/FeatureChecks.h"
#include "model/data/Features.h"
#include "model/data/Fractals.h"
#include "model/data/PositionalEncoding.h"

namespace nnwb {

namespace {

DataResult failure(std::string message) {
    DataResult r;
    r.ok = false;
    r.error = std::move(message);
    return r;
}

}  // namespace

void fillSamples(SampleSet& set, const FeatureMatrix& m, const std::vector<uint8_t>& flags,
                 const std::vector<int64_t>& time, size_t firstBar, size_t lastBar, int window,
                 bool positional) {
    const int nf = m.features;
    set.inputShape = Shape{window, nf};
    set.outputs = 3;
    set.x.clear();
    set.y.clear();
    set.time.clear();
    if (firstBar > lastBar) return;
    const size_t count = lastBar - firstBar + 1;
    const size_t per = set.inputShape.size();
    set.x.resize(count * per);
    set.y.resize(count * 3);
    set.time.resize(count);
    for (size_t s = 0; s < count; ++s) {
        const size_t t = firstBar + s;
        float* dst = set.x.data() + s * per;
        const double* src = m.row(t + 1 - static_cast<size_t>(window));
        for (size_t k = 0; k < per; ++k) dst[k] = static_cast<float>(src[k]);
        if (positional) addPositionalEncoding(dst, window, nf);
        const bool buy = flags[t] & kFractalBuy, sell = flags[t] & kFractalSell;
        float* y = set.y.data() + s * 3;
        y[0] = !buy && !sell ? 1.0f : 0.0f;
        y[1] = buy ? 1.0f : 0.0f;
        y[2] = sell ? 1.0f : 0.0f;
        set.time[s] = time[t];
    }
}

BarNeeds barsNeeded(const DataConfig& config) {
    BarNeeds n;
    n.warmup = config.features.warmup();
    n.window = static_cast<size_t>(std::max(config.window, 1));
    n.reach = static_cast<size_t>(fractalReach(config.fractalRule()));
    n.firstBar = std::max(n.warmup + n.window - 1, n.reach);
    n.minimum = n.firstBar + n.reach + 1;
    return n;
}

std::string tooFewBarsMessage(const std::string& name, size_t bars, const BarNeeds& n) {
    return name + ": too few bars: this experiment needs at least " + std::to_string(n.minimum) +
           " bars, file has " + std::to_string(bars) + " (indicator warm-up " +
           std::to_string(n.warmup) + " + window " + std::to_string(n.window) + " + " +
           std::to_string(n.reach) + (n.reach == 1 ? " bar" : " bars") +
           " after it for the fractal label)";
}

SplitPlan planSplit(const DataConfig& config, size_t n, const std::string& name) {
    SplitPlan p;
    const BarNeeds needs = barsNeeded(config);
    if (n < needs.minimum) {
        p.error = tooFewBarsMessage(name, n, needs);
        return p;
    }
    const size_t w = needs.window;
    const size_t first = needs.firstBar;
    const size_t last = n - 1 - needs.reach;
    const size_t samples = last - first + 1;
    const size_t nominalValidation =
        static_cast<size_t>(std::llround(static_cast<double>(samples) * config.validationShare));
    if (nominalValidation >= samples) {
        p.error =
            name + ": too few samples (" + std::to_string(samples) + ") to keep a training part";
        return p;
    }
    const size_t trainLast = first + (samples - nominalValidation) - 1;
    p.trainFirstBar = first;
    p.trainLastBar = trainLast;
    if (nominalValidation > 0) {
        p.validationFirstBar = trainLast + w;  // window start trainLast + 1
        p.validationLastBar = last;
        if (p.validationFirstBar > last) {
            p.error = name + ": too few samples (" + std::to_string(samples) +
                      ") for a validation part: " + std::to_string(nominalValidation) +
                      " validation samples minus " + std::to_string(w - 1) +
                      " dropped at the boundary (window " + std::to_string(w) +
                      ") leaves none; lower data.window or data.validationShare";
            return p;
        }
        p.droppedAtBoundary = w - 1;
    }
    return p;
}

namespace {

// The samples of several blocks, in order (one block: fillSamples itself).
void fillBlocks(SampleSet& set, const FeatureMatrix& m, const std::vector<uint8_t>& flags,
                const std::vector<int64_t>& time, const std::vector<BarRange>& blocks, int window,
                bool positional) {
    fillSamples(set, m, flags, time, 1, 0, window, positional);
    for (const BarRange& b : blocks) {
        SampleSet part;
        fillSamples(part, m, flags, time, b.first, b.last, window, positional);
        set.x.insert(set.x.end(), part.x.begin(), part.x.end());
        set.y.insert(set.y.end(), part.y.begin(), part.y.end());
        set.time.insert(set.time.end(), part.time.begin(), part.time.end());
    }
}

// The feature rows the samples of `blocks` read (each block's windows), merged where they touch.
std::vector<BarRange> windowRows(const std::vector<BarRange>& blocks, size_t w) {
    std::vector<BarRange> rows;
    for (const BarRange& b : blocks) {
        const BarRange r{b.first + 1 - w, b.last};
        if (!rows.empty() && r.first <= rows.back().last + 1)
            rows.back().last = std::max(rows.back().last, r.last);
        else
            rows.push_back(r);
    }
    return rows;
}

BarRange hull(const std::vector<BarRange>& blocks) {
    return blocks.empty() ? BarRange{} : BarRange{blocks.front().first, blocks.back().last};
}

// The one place a file's parts become samples: features, labels, the finite check over every
// bar a sample reads, the constant-feature warnings and the z-score statistics of the training
// part (the rows its samples' windows read), then the samples of each part.
DataResult buildParts(const DataConfig& config, const BarSeries& bars, const std::string& name,
                      const SampleBlocks& blocks) {
    const size_t w = static_cast<size_t>(config.window);
    const BarRange train = hull(blocks.train);
    size_t last = train.last, lowest = train.first;
    for (const std::vector<BarRange>* part : {&blocks.validation, &blocks.test})
        if (!part->empty()) {
            last = std::max(last, part->back().last);
            lowest = std::min(lowest, part->front().first);
        }

    DataResult r;
    FeatureMatrix m = computeFeatures(bars, config.features);
    const std::vector<uint8_t> flags = fractalFlags(bars.high, bars.low, config.fractalRule());
    // Every value that enters a sample must be finite (indicators are defined after warm-up).
    for (size_t i = lowest + 1 - w; i <= last; ++i)
        for (int k = 0; k < m.features; ++k)
            if (!std::isfinite(m.at(i, k)))
                return failure(name + ": feature " + m.names[static_cast<size_t>(k)] +
                               " is not finite at bar " + std::to_string(i));
    // A feature constant over the training part carries no information (tick volume 0 on
    // every bar of a forex export): the run goes on, with a warning naming it.
    // Constant on the training part only (other values in the validation or test part): said
    // so, not "on every bar". (Several training blocks: judged over their hull.)
    const std::vector<ConstantFeature> everywhere =
        constantFeatures(m, config.features, lowest + 1 - w, last);
    for (const ConstantFeature& c :
         constantFeatures(m, config.features, train.first + 1 - w, train.last)) {
        const bool all =
            std::any_of(everywhere.begin(), everywhere.end(),
                        [&](const ConstantFeature& e) { return e.feature == c.feature; });
        r.warnings.push_back(all ? constantFeatureWarning(name, c, true)
                                 : constantTrainingFeatureWarning(name, c));
    }
    if (config.normalization == "zscore") {
        r.stats = fitZScore(m, windowRows(blocks.train, w));
        applyZScore(m, r.stats);
    }

    fillBlocks(r.split.train, m, flags, bars.time, blocks.train, config.window,
               config.positionalEncoding);
    fillBlocks(r.split.validation, m, flags, bars.time, blocks.validation, config.window,
               config.positionalEncoding);
    fillBlocks(r.test, m, flags, bars.time, blocks.test, config.window, config.positionalEncoding);
    const BarRange validation = hull(blocks.validation), test = hull(blocks.test);
    r.trainFirstBar = train.first;
    r.trainLastBar = train.last;
    r.validationFirstBar = validation.first;
    r.validationLastBar = validation.last;
    r.testFirstBar = test.first;
    r.testLastBar = test.last;
    r.featureNames = m.names;
    r.ok = true;
    return r;
}

SampleBlocks blocksOf(const SampleRanges& ranges) {
    SampleBlocks b;
    b.train.push_back({ranges.trainFirst, ranges.trainLast});
    if (ranges.validationFirst <= ranges.validationLast)
        b.validation.push_back({ranges.validationFirst, ranges.validationLast});
    if (ranges.testFirst <= ranges.testLast) b.test.push_back({ranges.testFirst, ranges.testLast});
    return b;
}

std::string sourceName(const BarSeries& bars) {
    return bars.source.empty() ? "data" : baseName(bars.source);
}

}  // namespace

DataResult buildDataSplitFromBars(const DataConfig& config, BarSeries bars) {
    const std::string problem = config.validate();
    if (!problem.empty()) return failure(problem);
    const std::string name = sourceName(bars);
    const SplitPlan plan = planSplit(config, bars.size(), name);
    if (!plan.error.empty()) return failure(plan.error);
    SampleRanges ranges;
    ranges.trainFirst = plan.trainFirstBar;
    ranges.trainLast = plan.trainLastBar;
    ranges.validationFirst = plan.validationFirstBar;
    ranges.validationLast = plan.validationLastBar;
    DataResult r = buildParts(config, bars, name, blocksOf(ranges));
    if (!r.ok) return r;
    r.droppedAtBoundary = plan.droppedAtBoundary;
    r.bars = std::move(bars);
    return r;
}

DataResult buildDataSplitForRanges(const DataConfig& config, const BarSeries& bars,
                                   const SampleRanges& ranges) {
    return buildDataSplitForBlocks(config, bars, blocksOf(ranges));
}

DataResult buildDataSplitForBlocks(const DataConfig& config, const BarSeries& bars,
                                   const SampleBlocks& blocks) {
    const std::string problem = config.validate();
    if (!problem.empty()) return failure(problem);
    const std::string name = sourceName(bars);
    const BarNeeds needs = barsNeeded(config);
    if (bars.size() < needs.minimum) return failure(tooFewBarsMessage(name, bars.size(), needs));
    const size_t lastSample = bars.size() - 1 - needs.reach;
    auto outside = [&](const std::vector<BarRange>& part) {
        for (const BarRange& b : part)
            if (b.empty() || b.first < needs.firstBar || b.last > lastSample) return true;
        return false;
    };
    const BarRange train = hull(blocks.train);
    if (blocks.train.empty() || outside(blocks.train) || outside(blocks.validation) ||
        outside(blocks.test))
        return failure(name + ": a part's samples (training " + std::to_string(train.first) + ".." +
                       std::to_string(train.last) + ") lie outside the file's samples (" +
                       std::to_string(needs.firstBar) + ".." + std::to_string(lastSample) + ")");
    return buildParts(config, bars, name, blocks);
}

DataResult buildDataSplit(const DataConfig& config, const std::string& baseDir) {
    const std::string problem = config.validate();
    if (!problem.empty()) return failure(problem);
    if (config.source == "synthetic")
        return failure(
            "data.source: synthetic data is built by the Trainer, not by "
            "buildDataSplit");
    if (config.file.empty()) return failure("data.file: no bar file given");
    LoadResult loaded = loadBarFileCached(config.resolvedFile(baseDir));
    if (!loaded.ok) return failure(loaded.error);
    DataResult r = buildDataSplitFromBars(config, std::move(loaded.bars));
    r.warnings.insert(r.warnings.begin(), loaded.warnings.begin(), loaded.warnings.end());
    return r;
}

}  // namespace nnwb
