// The bar needs (model/data/DataPipeline.h's BarNeeds) of features with a given warm-up, window
// and label reach, as the fold and CPCV plan tests state them. One copy here instead of one per
// test file. Qt-free; any thread.
#pragma once

#include <algorithm>
#include <cstddef>

#include "model/data/DataPipeline.h"

namespace nnwb::test {

// The first usable bar is the later of warmup + window - 1 and reach; the minimum bar count
// leaves `reach` bars after it and one more.
inline BarNeeds needsOf(size_t warmup, size_t window, size_t reach) {
    BarNeeds n;
    n.warmup = warmup;
    n.window = window;
    n.reach = reach;
    n.firstBar = std::max(warmup + window - 1, reach);
    n.minimum = n.firstBar + n.reach + 1;
    return n;
}

}  // namespace nnwb::test
