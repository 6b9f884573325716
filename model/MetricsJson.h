// The JSON keys of one part's epoch figures, written once for every writer of them (the trial
// protocol's epoch codec in app/trial/EpochReportJson, the prediction report's metrics): one key
// per metric, accuracy and missed in percent. A header-only template over nlohmann::json and
// nlohmann::ordered_json. Qt-free; any thread.
#pragma once

#include "model/Metrics.h"

namespace nnwb {

// Sets samples and loss in `j`; with `task` also accuracy, missed, signals, patterns and the
// confusion matrix (confusion[actual][predicted]).
template <class Json>
void putEpochMetrics(Json& j, const EpochMetrics& m, bool task = true) {
    j["samples"] = m.samples;
    j["loss"] = m.loss;
    if (!task) return;
    j["accuracy"] = m.accuracyPct;
    j["missed"] = m.missedPct;
    j["signals"] = m.signalCount;
    j["patterns"] = m.patterns;
    j["confusion"] = m.confusion;
}

}  // namespace nnwb
