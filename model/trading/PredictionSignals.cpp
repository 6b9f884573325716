#include "model/trading/PredictionSignals.h"

namespace nnwb {

SignalSeries signalsOf(const PredictionResult& r) {
    SignalSeries s;
    for (const PredictionRow& row : r.rows) s.add(row.bar, row.outputs, row.signal);
    return s;
}

}  // namespace nnwb
