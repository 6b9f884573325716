#include "app/sweep/SweepShow.h"

#include "app/sweep/SweepReadModel.h"

namespace nnwb {

nlohmann::json sweepShowReport(RunStore& store, const SweepRow& sweep, const sweep::SweepSpec& spec,
                               int cscvBlocks) {
    // The one read model `sweep show` and the Sweeps tab use, on the sweep's stored trials.
    return sweepShowReport(store, sweep, spec, SweepStore(store).trials(sweep.id), cscvBlocks);
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
