#include "model/MetricsCsv.h"

#include <cstdio>

#include "model/FigureText.h"

namespace nnwb {

namespace {

std::string field(const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

// ",accuracy,signals": the accuracy empty below the minimum of signals (model/FigureText.h).
std::string accuracyCells(const EpochMetrics& m, bool have) {
    if (!have) return ",,";
    return ',' + (accuracyShown(m.signalCount) ? num(m.accuracyPct) : std::string()) + ',' +
           std::to_string(m.signalCount);
}

}  // namespace

std::string metricsCsv(const std::vector<MetricsCsvRow>& rows, const MetricsCsvColumns& columns) {
    std::string out = columns.runAndDevice ? "run,device," : "";
    out +=
        "epoch,seconds,samples_per_second,train_loss,train_accuracy_pct,train_signals,"
        "train_missed_pct,validation_loss,validation_accuracy_pct,validation_signals,"
        "validation_missed_pct";
    out += columns.schedule ? ",learning_rate,best_epoch\n" : "\n";
    for (const MetricsCsvRow& row : rows) {
        const EpochReport& r = row.report;
        const bool task = r.taskMetrics, val = row.hasValidation;
        if (columns.runAndDevice) out += field(row.run) + ',' + field(row.device) + ',';
        out += std::to_string(r.epoch) + ',' + num(r.seconds) + ',' + num(r.samplesPerSecond) +
               ',' + num(r.train.loss) + accuracyCells(r.train, task) + ',' +
               (task ? num(r.train.missedPct) : "") + ',' + (val ? num(r.validation.loss) : "") +
               accuracyCells(r.validation, val && task) + ',' +
               (val && task ? num(r.validation.missedPct) : "");
        if (columns.schedule)
            out += ',' + (r.learningRate > 0 ? num(r.learningRate) : std::string()) + ',' +
                   (r.bestEpoch > 0 ? std::to_string(r.bestEpoch) : std::string());
        out += '\n';
    }
    return out;
}

}  // namespace nnwb
