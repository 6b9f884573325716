#include "app/sweep/SweepReadModel.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "app/runs/RunReturns.h"
#include "app/sweep/SweepDeflatedSharpe.h"
#include "app/sweep/SweepReport.h"

namespace nnwb {

std::string sweepValueText(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

std::vector<std::optional<double>> sweepValueRanks(const std::vector<TrialRow>& trials,
                                                   bool minimize) {
    auto oriented = [minimize](double v) { return minimize ? v : -v; };  // lower is better
    std::vector<double> ranked;
    for (const TrialRow& t : trials)
        if (t.value) ranked.push_back(oriented(*t.value));
    std::sort(ranked.begin(), ranked.end());
    std::vector<std::optional<double>> out;
    for (const TrialRow& t : trials) {
        if (!t.value) {
            out.emplace_back();
            continue;
        }
        const auto rank =
            std::lower_bound(ranked.begin(), ranked.end(), oriented(*t.value)) - ranked.begin();
        out.emplace_back(ranked.size() < 2 ? 0.0 : double(rank) / double(ranked.size() - 1));
    }
    return out;
}

SweepReturnsMatrix sweepStoredReturns(RunStore& store, const std::vector<TrialRow>& trials) {
    std::vector<int64_t> runIds;
    for (const TrialRow& t : trials)
        if (t.runId != 0) runIds.push_back(t.runId);
    return sweepReturnsMatrix(trials, readReturnSeries(store, runIds));
}

nlohmann::json sweepShowReport(RunStore& store, const SweepRow& sweep, const sweep::SweepSpec& spec,
                               const std::vector<TrialRow>& trials, int cscvBlocks) {
    nlohmann::json report = sweepReport(sweep, spec, trials);
    // The trading figures of the trials' runs, by the run each trial names.
    std::set<int64_t> runIds;
    for (const TrialRow& t : trials)
        if (t.runId != 0) runIds.insert(t.runId);
    std::map<int64_t, nlohmann::json> tradingOfRun;
    for (const StoredRun& run : store.list())
        if (runIds.count(run.id) && !run.trading.is_null()) tradingOfRun[run.id] = run.trading;
    const nlohmann::json dsr = sweepDeflatedSharpe(trials, tradingOfRun);
    if (!dsr.is_null()) report["deflatedSharpe"] = dsr;
    const nlohmann::json pbo = sweepOverfitting(sweepStoredReturns(store, trials), cscvBlocks);
    if (!pbo.is_null()) report["overfitting"] = pbo;
    return report;
}

}  // namespace nnwb
