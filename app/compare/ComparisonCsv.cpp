#include "app/compare/ComparisonCsv.h"

#include "model/AtomicFile.h"
#include "model/MetricsCsv.h"

namespace nnwb {

std::string comparisonCsv(const std::vector<RunRecord>& runs) {
    std::vector<MetricsCsvRow> rows;
    for (const RunRecord& run : runs)
        for (const EpochReport& r : run.epochs)
            rows.push_back({run.label, run.deviceId, r, run.hasValidation()});
    MetricsCsvColumns columns;
    columns.runAndDevice = true;
    return metricsCsv(rows, columns);
}

void writeComparisonCsv(const std::string& path, const std::vector<RunRecord>& runs) {
    writeFileAtomic(path, comparisonCsv(runs));
}

}  // namespace nnwb
