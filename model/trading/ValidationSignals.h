// The signals of a trained network on its run's validation part, for the trading evaluation of
// a run (RunEngine stores the figures with the run): one evaluation pass over the validation
// samples with the network's current weights, one signal per sample's last bar
// (ExperimentData::validationFirstBar..validationLastBar, or the bars of its validationBlocks).
// Call on the thread that owns the trainer's backend.
#pragma once

#include "model/ExperimentData.h"
#include "model/Trainer.h"
#include "model/trading/SignalSeries.h"

namespace nnwb {

// The largest output's index (ties: the first), as Predictor reports it: 0 none, 1 buy, 2 sell.
int signalOfOutputs(const std::array<float, 3>& outputs);

// Empty when `data` is not a price file, has no validation part, or the network does not have
// three outputs. Leaves the weights and the optimizer as they were.
SignalSeries validationSignals(Trainer& trainer, const ExperimentData& data);
// The same for every model of a population, from one evaluation pass (one series per model).
std::vector<SignalSeries> validationSignalsAll(Trainer& trainer, const ExperimentData& data);

}  // namespace nnwb
