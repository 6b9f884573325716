// Placeholder until the data branch lands (it owns the full implementation).
#include "model/Metrics.h"

namespace nnwb {

MetricsAccumulator::MetricsAccumulator(int classes, RunningAverages* running)
    : classes_(classes), running_(running) {}

void MetricsAccumulator::add(const float*, const float*, const float* loss, size_t n) {
    for (size_t i = 0; i < n; ++i) lossSum_ += loss[i];
    m_.samples += n;
}

EpochMetrics MetricsAccumulator::result() const {
    EpochMetrics r = m_;
    r.loss = m_.samples ? lossSum_ / double(m_.samples) : 0.0;
    return r;
}

}  // namespace nnwb
