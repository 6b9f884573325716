// The one writer of per-epoch metrics as CSV, for the training pane's export and the
// comparison's --csv / Save: one row per epoch with the columns epoch, seconds,
// samples_per_second, train and validation loss / accuracy % / signals / missed %, optionally
// led by the run and device and followed by the learning rate and best epoch. Empty fields
// where a figure does not exist (no validation part, not a three-class task, an accuracy below
// kMinSignalsForAccuracy signals: model/FigureText.h). Value types; any thread.
#pragma once

#include <string>
#include <vector>

#include "model/Trainer.h"

namespace nnwb {

struct MetricsCsvRow {
    std::string run, device;  // written only with MetricsCsvColumns::runAndDevice
    EpochReport report;
    bool hasValidation = true;
};

struct MetricsCsvColumns {
    bool runAndDevice = false;  // leading run, device
    bool schedule = false;      // trailing learning_rate, best_epoch
};

// The header line and one line per row, each ending in '\n'. Numbers with 9 significant digits.
std::string metricsCsv(const std::vector<MetricsCsvRow>& rows, const MetricsCsvColumns& columns);

}  // namespace nnwb
