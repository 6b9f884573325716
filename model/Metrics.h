// Per-epoch task metrics of docs/ARCHITECTURE.md §4 (loss, accuracy %, missed patterns %, 3x3
// confusion) accumulated batch by batch from network outputs and one-hot targets [none, buy, sell].
// Also the MQL5-style never-reset running averages (factor 1/10000) as an option.
// Value types; used by the thread that runs the Trainer.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace nnwb {

struct EpochMetrics {
    size_t samples = 0;
    double loss = 0.0;         // mean loss per sample
    double accuracyPct = 0.0;  // of buy/sell signals emitted, share on a real fractal of that type
    double missedPct = 0.0;    // of real fractal bars, share without a signal of the right type
    size_t signalCount = 0;    // buy/sell signals emitted (not "signals": a Qt macro)
    size_t patterns = 0;       // real fractal bars (an outside bar counts once)
    // confusion[actual][predicted], classes none/buy/sell; for an outside bar (target has both
    // buy and sell set) "actual" is the class the prediction hit if it hit one, else sell.
    std::array<std::array<int64_t, 3>, 3> confusion{};
    // MQL5-style running figures (updated per sample with factor 1/10000, never reset).
    double runningLoss = 0.0, runningAccuracyPct = 0.0, runningMissedPct = 0.0;
};

// The MQL5 expert's running averages, carried across epochs (never reset).
struct RunningAverages {
    double loss = 0.0, accuracyPct = 0.0, missedPct = 0.0;
    bool started = false;
};

class MetricsAccumulator {
public:
    // `classes` is the width of outputs/targets; the fractal figures need 3.
    explicit MetricsAccumulator(int classes = 3, RunningAverages* running = nullptr);
    // Adds `n` samples: outputs and targets are n x classes, lossPerSample has n values.
    void add(const float* outputs, const float* targets, const float* lossPerSample, size_t n);
    // Adds `n` samples from an outcome log of Backend::recordOutcomes (loss, code pairs),
    // written with codeWeights(classes) as its encoding of the targets.
    void addOutcomes(const float* log, size_t n);
    // The encoding of the true class in an outcome code, for recordOutcomes' codeWeights: the
    // code is argmax + 3 * buy + 6 * sell for the three classes [none, buy, sell] (what
    // addOutcomes decodes); empty (the argmax alone) for other widths.
    static std::vector<float> codeWeights(int classes);
    EpochMetrics result() const;

private:
    // One sample: its loss and, with `task`, the predicted class and the target's flags.
    void addSample(double loss, bool task, int pred, bool buy, bool sell);
    int classes_;
    RunningAverages* running_;
    EpochMetrics m_;
    double lossSum_ = 0.0;
    size_t hits_ = 0;    // signals on a real fractal of that type
    size_t caught_ = 0;  // real patterns that got the right signal
};

}  // namespace nnwb
