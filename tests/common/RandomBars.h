// Hourly bars of a seeded random walk (from Monday 2022-05-02 00:00, every hour) for the data
// tests that need a bar series of a given length without a file. One copy here instead of one
// per test file. Qt-free; any thread.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "model/data/BarSeries.h"
#include "model/data/DateTime.h"

namespace nnwb::test {

// `n` bars (format "csv", named `source`) from the linear congruential sequence of `seed`:
// steps of at most ±0.002 from 1.2, wicks of 0-0.001, volumes 0-99 (hasVolume as given).
inline BarSeries randomWalkBars(size_t n, uint32_t seed, const std::string& source,
                                bool hasVolume) {
    BarSeries b;
    b.format = "csv";
    b.source = source;
    b.timeframe = 3600;
    b.hasVolume = hasVolume;
    double p = 1.2;
    for (size_t i = 0; i < n; ++i) {
        seed = seed * 1664525u + 1013904223u;
        const double step = (double(seed >> 8) / double(1u << 24) - 0.5) * 0.004;
        const double o = p, c = p + step;
        b.time.push_back(fromCalendar(2022, 5, 2) + int64_t(i) * 3600);
        b.open.push_back(o);
        b.close.push_back(c);
        b.high.push_back(std::max(o, c) + 0.0005 * ((seed >> 4) % 3));
        b.low.push_back(std::min(o, c) - 0.0005 * ((seed >> 6) % 3));
        b.volume.push_back(double(seed % 100));
        p = c;
    }
    return b;
}

}  // namespace nnwb::test
