#include "app/sweep/SweepShow.h"

#include <map>
#include <string>
#include <vector>

#include "app/runs/RunReturns.h"
#include "app/sweep/SweepDeflatedSharpe.h"
#include "app/sweep/SweepOverfitting.h"
#include "app/sweep/SweepReport.h"

namespace nnwb {

nlohmann::json sweepShowReport(RunStore& store, const SweepRow& sweep, const sweep::SweepSpec& spec,
                               int cscvBlocks) {
    SweepStore sweeps(store);
    const std::vector<TrialRow> trials = sweeps.trials(sweep.id);
    nlohmann::json report = sweepReport(sweep, spec, trials);
    std::map<int64_t, nlohmann::json> tradingOfRun;
    for (const StoredRun& run : store.list())
        if (run.comparison == "sweep-" + std::to_string(sweep.id) && !run.trading.is_null())
            tradingOfRun[run.id] = run.trading;
    const nlohmann::json dsr = sweepDeflatedSharpe(trials, tradingOfRun);
    if (!dsr.is_null()) report["deflatedSharpe"] = dsr;
    std::vector<int64_t> runIds;
    for (const TrialRow& t : trials)
        if (t.runId != 0) runIds.push_back(t.runId);
    const nlohmann::json pbo =
        sweepOverfitting(sweepReturnsMatrix(trials, readReturnSeries(store, runIds)), cscvBlocks);
    if (!pbo.is_null()) report["overfitting"] = pbo;
    return report;
}

nlohmann::json sweepVerdictTrading(RunStore& store, const nlohmann::json& report) {
    int64_t run = 0;
    if (report.contains("deflatedSharpe") && report["deflatedSharpe"].value("run", 0) > 0)
        run = report["deflatedSharpe"]["run"].get<int64_t>();
    else if (report.contains("best") && report["best"].is_object() &&
             report["best"]["run"].is_number())
        run = report["best"]["run"].get<int64_t>();
    if (run <= 0) return nullptr;
    const std::optional<StoredRun> r = store.get(run);
    return r ? r->trading : nlohmann::json();
}

}  // namespace nnwb
