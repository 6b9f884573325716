#include "app/runs/StoredRunCsv.h"

#include <cstdio>

#include "model/AtomicFile.h"
#include "model/FigureText.h"

namespace nnwb {

namespace {

const char* kClasses[] = {"none", "buy", "sell"};

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

std::string partHeader(const std::string& p) {
    std::string h = "," + p + "_samples," + p + "_loss," + p + "_accuracy_pct," + p +
                    "_missed_pct," + p + "_signals," + p + "_patterns";
    for (const char* a : kClasses)
        for (const char* q : kClasses) h += "," + p + "_confusion_" + a + "_" + q;
    return h;
}

std::string partCells(const EpochMetrics& m, bool have, bool task) {
    std::string s;
    s += "," + (have ? std::to_string(m.samples) : "");
    s += "," + (have ? num(m.loss) : "");
    // No accuracy below the minimum of signals (an epoch without a signal has none, not 0 %).
    s += "," + (have && task && accuracyShown(m.signalCount) ? num(m.accuracyPct) : "");
    s += "," + (have && task ? num(m.missedPct) : "");
    s += "," + (have && task ? std::to_string(m.signalCount) : "");
    s += "," + (have && task ? std::to_string(m.patterns) : "");
    for (const auto& row : m.confusion)
        for (int64_t v : row) s += "," + (have && task ? std::to_string(v) : "");
    return s;
}

}  // namespace

std::string storedRunCsv(const StoredRun& run) {
    std::string out = "epoch,seconds,samples_per_second,learning_rate" + partHeader("train") +
                      partHeader("validation") + "\n";
    for (const StoredEpoch& e : run.epochs) {
        const EpochReport& r = e.report;
        out += std::to_string(r.epoch) + "," + num(r.seconds) + "," + num(r.samplesPerSecond) +
               "," + (e.learningRate ? num(*e.learningRate) : "") +
               partCells(r.train, true, r.taskMetrics) +
               partCells(r.validation, r.validation.samples > 0, r.taskMetrics) + "\n";
    }
    return out;
}

void writeStoredRunCsv(const std::string& path, const StoredRun& run) {
    writeFileAtomic(path, storedRunCsv(run));
}

}  // namespace nnwb
