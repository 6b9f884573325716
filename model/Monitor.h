// The metric a run watches to pick its best epoch, stop early and reduce its learning rate on a
// plateau: validation loss (the default), validation accuracy %, validation missed patterns %,
// or the training loss (what a run without a validation part falls back to). Pure functions of
// an EpochReport's figures; any thread.
#pragma once

#include <string>

#include "model/Metrics.h"

namespace nnwb {

enum class Monitor { ValidationLoss, ValidationAccuracy, ValidationMissed, TrainingLoss };

// "validation_loss", "validation_accuracy", "validation_missed", "training_loss".
std::string monitorName(Monitor m);
// Throws std::invalid_argument listing the names.
Monitor monitorFromName(const std::string& name);
// Words for messages: "validation loss", "validation accuracy %", …
std::string monitorLabel(Monitor m);
// The monitor a run really uses: training loss without a validation part, validation loss
// for accuracy or missed % when the task has no such figures (not 3 outputs).
Monitor effectiveMonitor(Monitor wanted, bool hasValidation, bool taskMetrics);
bool higherIsBetter(Monitor m);
double monitorValue(Monitor m, const EpochMetrics& train, const EpochMetrics& validation);

}  // namespace nnwb
