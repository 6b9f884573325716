// A range of bar indices (inclusive), the samples whose windows end at bars first..last; empty
// when first > last. The parts of a combinatorial purged cross-validation split
// (model/data/CpcvPlan.h) and of its data (buildDataSplitForBlocks) are lists of them. Value
// type; any thread.
#pragma once

#include <cstddef>

namespace nnwb {

struct BarRange {
    size_t first = 1, last = 0;
    bool empty() const { return first > last; }
    size_t size() const { return empty() ? 0 : last - first + 1; }
    bool contains(size_t t) const { return first <= t && t <= last; }
    bool operator==(const BarRange& o) const { return first == o.first && last == o.last; }
};

}  // namespace nnwb
