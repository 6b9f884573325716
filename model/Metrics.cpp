#include "model/Metrics.h"

namespace nnwb {

namespace {
constexpr double kRunningFactor = 1.0 / 10000.0;  // the MQL5 expert's smoothing factor

void runningUpdate(double& value, double x) {
    value = (1.0 - kRunningFactor) * value + kRunningFactor * x;
}
}  // namespace

MetricsAccumulator::MetricsAccumulator(int classes, RunningAverages* running)
    : classes_(classes), running_(running) {}

void MetricsAccumulator::add(const float* outputs, const float* targets, const float* lossPerSample,
                             size_t n) {
    const size_t c = classes_ > 0 ? static_cast<size_t>(classes_) : 0;
    const bool task = c == 3 && outputs && targets;
    for (size_t i = 0; i < n; ++i) {
        const double loss = lossPerSample ? static_cast<double>(lossPerSample[i]) : 0.0;
        if (!task) {
            addSample(loss, false, 0, false, false);
            continue;
        }
        const float* o = outputs + i * c;
        const float* t = targets + i * c;
        int pred = 0;  // argmax; ties go to the first (none before buy before sell)
        for (int k = 1; k < 3; ++k)
            if (o[k] > o[pred]) pred = k;
        addSample(loss, true, pred, t[1] > 0.5f, t[2] > 0.5f);
    }
}

std::vector<float> MetricsAccumulator::codeWeights(int classes) {
    if (classes != 3) return {};
    return {0.0f, 3.0f, 6.0f};
}

void MetricsAccumulator::addOutcomes(const float* log, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        const int code = static_cast<int>(log[2 * i + 1]);
        addSample(static_cast<double>(log[2 * i]), classes_ == 3, code % 3, (code / 3) % 2 == 1,
                  code / 6 == 1);
    }
}

void MetricsAccumulator::addSample(double loss, bool task, int pred, bool buy, bool sell) {
    lossSum_ += loss;
    ++m_.samples;
    if (running_) {
        runningUpdate(running_->loss, loss);
        running_->started = true;
    }
    if (!task) return;
    const bool pattern = buy || sell;
    const bool signal = pred != 0;
    const bool hit = (pred == 1 && buy) || (pred == 2 && sell);

    int actual = 0;
    if (buy && sell)
        actual = hit ? pred : 2;
    else if (buy)
        actual = 1;
    else if (sell)
        actual = 2;
    ++m_.confusion[static_cast<size_t>(actual)][static_cast<size_t>(pred)];

    if (signal) {
        ++m_.signalCount;
        if (hit) ++hits_;
        if (running_) runningUpdate(running_->accuracyPct, hit ? 100.0 : 0.0);
    }
    if (pattern) {
        ++m_.patterns;
        if (hit) ++caught_;
        if (running_) runningUpdate(running_->missedPct, hit ? 0.0 : 100.0);
    }
}

EpochMetrics MetricsAccumulator::result() const {
    EpochMetrics r = m_;
    r.loss = r.samples ? lossSum_ / static_cast<double>(r.samples) : 0.0;
    r.accuracyPct = r.signalCount ? 100.0 * static_cast<double>(hits_) / r.signalCount : 0.0;
    r.missedPct = r.patterns ? 100.0 * static_cast<double>(r.patterns - caught_) / r.patterns : 0.0;
    if (running_) {
        r.runningLoss = running_->loss;
        r.runningAccuracyPct = running_->accuracyPct;
        r.runningMissedPct = running_->missedPct;
    }
    return r;
}

}  // namespace nnwb
