#include "app/report/ReportPages.h"

#include <optional>

#include "app/runs/RunReturns.h"
#include "app/runs/RunStore.h"
#include "app/sweep/SweepShow.h"
#include "app/sweep/SweepStore.h"
#include "model/data/DateTime.h"
#include "model/overfitting/Cscv.h"
#include "model/trading/SweepHtml.h"
#include "model/trading/TradingReportText.h"

namespace nnwb {

std::string storedRunReportPage(const std::string& db, int64_t runId) {
    RunStore store(db, false);
    const std::optional<StoredRun> run = store.get(runId);
    if (!run) throw ReportInputError("no run " + std::to_string(runId) + " in " + db);
    RunReportInput in;
    in.title = "Run " + std::to_string(run->id) + ": " + run->name;
    in.summary = run->dataFile + " (" + run->dataFirstBar + " .. " + run->dataLastBar + "), " +
                 run->deviceName + ", " + run->status + ", started " + run->startedAt +
                 "; trading figures of the validation part with the best epoch's weights";
    in.trading = run->trading;
    const auto returns = readReturnSeries(store, {run->id});
    const auto it = returns.find(run->id);
    if (it != returns.end()) {
        in.pct = it->second.pct;
        for (int64_t t : it->second.time) in.times.push_back(formatBarTime(t));
    }
    return runHtml(in);
}

std::string sweepReportPage(const std::string& db, int64_t sweepId) {
    RunStore store(db, false);
    SweepStore sweeps(store);
    const std::optional<SweepRow> row = sweeps.sweep(sweepId);
    if (!row) throw ReportInputError("no sweep " + std::to_string(sweepId) + " in " + db);
    sweep::SweepSpec spec;
    try {
        spec = storedSpec(*row);
    } catch (const sweep::SpecError& e) {
        throw ReportInputError("sweep " + std::to_string(sweepId) +
                               ": its spec no longer loads: " + e.what());
    }
    SweepReportInput in;
    in.report = sweepShowReport(store, *row, spec, kCscvDefaultBlocks);
    in.bestTrading = sweepVerdictTrading(store, in.report);
    for (const sweep::SpecParam& p : spec.params) in.parameters.push_back(p.def.name);
    in.source = db;
    return sweepHtml(in);
}

RunReportInput runReportInput(const std::string& title, const std::string& summary,
                              const TradingReport& trading) {
    RunReportInput in;
    in.title = title;
    in.summary = summary;
    in.trading = nlohmann::json::parse(tradingReportJson(trading, true).dump());
    const TradingEquity& e = trading.equity;
    double previous = 0;
    for (size_t i = 0; i < e.pct.size() && i < e.time.size(); ++i) {
        in.pct.push_back(e.pct[i] - previous);  // runHtml sums them back
        previous = e.pct[i];
        in.times.push_back(formatBarTime(e.time[i]));
    }
    return in;
}

}  // namespace nnwb
