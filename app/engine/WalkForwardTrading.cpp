#include "app/engine/WalkForwardTrading.h"

#include "app/runs/RunReturns.h"
#include "model/trading/TradingReportText.h"

namespace nnwb {

StitchedTrading tradeStitched(const WalkForward& wf, const WalkForwardResult& result) {
    StitchedTrading t;
    if (result.outOfSample.empty() || !wf.data().bars) return t;
    try {
        t.report = std::make_shared<const TradingReport>(
            evaluateTrading(*wf.data().bars, result.outOfSample, wf.experiment().trading));
    } catch (const TradingInputError& e) {
        t.error = e.what();
    }
    return t;
}

nlohmann::json stitchedTradingJson(const WalkForward& wf, const StitchedTrading& trading) {
    if (!trading.error.empty()) return {{"error", trading.error}};
    if (!trading.report) return nullptr;
    nlohmann::json t = tradingReportJson(*trading.report);
    t["part"] = "outOfSample";
    t["settings"] = wf.experiment().trading.toJson();
    t["returnSeries"] = returnSeriesJson(trading.report->equity);  // RunStore keeps it apart
    return t;
}

}  // namespace nnwb
