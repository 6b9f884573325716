// Decimation of a bar series for drawing: level 0 holds every bar, level k merges 2^k
// consecutive bars into one candle (first open, highest high, lowest low, last close) keyed at
// the centre of its bars, so a zoomed-out chart draws at most a few candles per pixel column.
// Built once per series; plain data, read by the GUI thread that owns the chart.
#pragma once

#include <cstddef>
#include <vector>

#include "model/data/BarSeries.h"

namespace nnwb {

struct CandleLevel {
    size_t span = 1;  // bars per candle
    std::vector<double> key, open, high, low, close;
    size_t size() const { return key.size(); }
};

class CandleLevels {
public:
    void build(const BarSeries& bars);
    void clear() { levels_.clear(); }
    bool empty() const { return levels_.empty(); }
    size_t count() const { return levels_.size(); }
    const CandleLevel& level(size_t i) const { return levels_[i]; }
    // The finest level that draws at most `maxCandles` candles for `visibleBars` bars.
    size_t levelFor(double visibleBars, double maxCandles) const;
    // Lowest low and highest high of level `i` over bar keys [from, to]; false if none.
    bool valueRange(size_t i, double from, double to, double& lo, double& hi) const;

private:
    std::vector<CandleLevel> levels_;
};

}  // namespace nnwb
