#include "model/trading/PredictionSignals.h"

namespace nnwb {

SignalSeries signalsOf(const PredictionResult& r) {
    SignalSeries s;
    for (const PredictionRow& row : r.rows) {
        s.add(row.bar, row.outputs, row.signal);
        if (r.members > 1) s.agreement.push_back(row.agreement);
    }
    return s;
}

}  // namespace nnwb
