// The signal series of a prediction run (Predictor.h): one entry per predicted bar, its
// outputs and signal, for the trading evaluation. Pure function; any thread.
#pragma once

#include "model/Predictor.h"
#include "model/trading/SignalSeries.h"

namespace nnwb {

SignalSeries signalsOf(const PredictionResult& r);

}  // namespace nnwb
