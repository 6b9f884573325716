#include "model/EarlyStopping.h"

#include <cmath>

namespace nnwb {

bool BestEpochTracker::update(int epoch, double value) {
    lastEpoch_ = epoch;
    if (!std::isfinite(value)) return false;
    bool better = !hasBest();
    if (!better)
        better = higherIsBetter(monitor_) ? value - minDelta_ > best_ : value + minDelta_ < best_;
    if (better) {
        best_ = value;
        bestEpoch_ = epoch;
    }
    return better;
}

}  // namespace nnwb
