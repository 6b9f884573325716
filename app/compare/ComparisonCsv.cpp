#include "app/compare/ComparisonCsv.h"

#include <cstdio>

#include "model/AtomicFile.h"

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

}  // namespace

std::string comparisonCsv(const std::vector<RunRecord>& runs) {
    std::string out =
        "run,device,epoch,seconds,samples_per_second,train_loss,train_accuracy_pct,"
        "train_missed_pct,validation_loss,validation_accuracy_pct,validation_missed_pct\n";
    for (const RunRecord& run : runs) {
        const bool val = run.hasValidation();
        for (const EpochReport& r : run.epochs) {
            const bool task = r.taskMetrics;
            out += field(run.label) + ',' + field(run.deviceId) + ',' + std::to_string(r.epoch) +
                   ',' + num(r.seconds) + ',' + num(r.samplesPerSecond) + ',' + num(r.train.loss) +
                   ',' + (task ? num(r.train.accuracyPct) : "") + ',' +
                   (task ? num(r.train.missedPct) : "") + ',' +
                   (val ? num(r.validation.loss) : "") + ',' +
                   (val && task ? num(r.validation.accuracyPct) : "") + ',' +
                   (val && task ? num(r.validation.missedPct) : "") + '\n';
        }
    }
    return out;
}

void writeComparisonCsv(const std::string& path, const std::vector<RunRecord>& runs) {
    writeFileAtomic(path, comparisonCsv(runs));
}

}  // namespace nnwb
