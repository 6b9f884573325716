// A model's predictions over bars of one price series, in bar order: what the trading
// evaluation reads (TradingEvaluation.h) and what walk-forward validation stitches from its
// folds' test parts, what predict and a run's validation part produce. Plain value type;
// built by one thread, then safe to read from any thread.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

namespace nnwb {

struct SignalSeries {
    // Bar indices into the BarSeries the predictions were made on, strictly increasing. A
    // signal on bar t is known when bar t has closed; it is acted on at bar t + 1's open.
    std::vector<size_t> bar;
    // The network's outputs for each bar, [none, buy, sell] (what the metrics see).
    std::vector<std::array<float, 3>> outputs;
    // The signal of each bar: 0 none, 1 buy, 2 sell (the argmax of outputs).
    std::vector<int> signal;
    // An ensemble's agreement per bar (the share of members voting for the signal); empty for
    // one model (every signal agreed by all).
    std::vector<float> agreement;

    size_t size() const { return bar.size(); }
    bool empty() const { return bar.empty(); }
    void add(size_t b, const std::array<float, 3>& out, int sig) {
        bar.push_back(b);
        outputs.push_back(out);
        signal.push_back(sig);
    }
    float agreementAt(size_t k) const { return agreement.empty() ? 1.0f : agreement[k]; }
};

}  // namespace nnwb
