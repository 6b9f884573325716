// The per-epoch CSV of a stored run (`nnwb-cli runs export ID --csv OUT` and the Runs view's
// export): one row per epoch with every figure the store keeps. Pure functions; any thread.
// Qt-free.
#pragma once

#include <string>

#include "app/runs/StoredRun.h"

namespace nnwb {

// Header: epoch, seconds, samples_per_second, learning_rate, then for train_ and validation_:
// samples, loss, accuracy_pct, missed_pct, signals, patterns and the confusion matrix as
// confusion_A_P (actual A, predicted P; classes none, buy, sell). Empty cells: not measured,
// and accuracy_pct below kMinSignalsForAccuracy signals (model/FigureText.h).
std::string storedRunCsv(const StoredRun& run);
// Atomic; throws std::runtime_error("cannot save PATH: reason").
void writeStoredRunCsv(const std::string& path, const StoredRun& run);

}  // namespace nnwb
