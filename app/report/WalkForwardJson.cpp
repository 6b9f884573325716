#include "app/report/WalkForwardJson.h"

#include "app/engine/RunOutcome.h"
#include "model/PredictionReport.h"
#include "model/data/DateTime.h"
#include "model/trading/FoldTrading.h"
#include "model/trading/TradingReportText.h"

namespace nnwb {

using ojson = nlohmann::ordered_json;

namespace {

// A part's period and figures: {firstBar, lastBar, from, to, samples, loss, ...}.
ojson partJson(size_t first, size_t last, int64_t from, int64_t to, const EpochMetrics& m) {
    ojson j = {{"firstBar", first},
               {"lastBar", last},
               {"from", formatBarTime(from)},
               {"to", formatBarTime(to)}};
    const ojson figures = predictionMetricsJson(m);
    for (auto it = figures.begin(); it != figures.end(); ++it) j[it.key()] = *it;
    return j;
}

}  // namespace

ojson foldRecordJson(const FoldRecord& r) {
    ojson j = {{"fold", r.index + 1},
               {"folds", r.folds},
               {"name", r.name},
               {"runId", r.runId},
               {"status", foldEndWord(r.end)},
               {"epochs", r.epochs},
               {"bestEpoch", r.bestEpoch},
               {"stoppedEarly", r.stoppedEarly}};
    if (!r.error.empty()) j["error"] = r.error;
    const Fold& f = r.fold;
    j["train"] = partJson(f.trainFirst, f.trainLast, r.trainFrom, r.trainTo, r.train);
    j["validation"] = r.hasValidation ? partJson(f.validationFirst, f.validationLast,
                                                 r.validationFrom, r.validationTo, r.validation)
                                      : ojson(nullptr);
    j["test"] = partJson(f.testFirst, f.testLast, r.testFrom, r.testTo, r.test);
    return j;
}

ojson stitchedJson(const WalkForwardResult& w, const BarSeries& bars, const FoldPlan& plan) {
    ojson j = {{"folds", w.folds.size()},
               {"plannedFolds", plan.folds.size()},
               {"status", foldEndWord(w.end)},
               {"contiguous", plan.contiguous}};
    if (!w.outOfSample.empty()) {
        const size_t a = w.outOfSample.bar.front(), b = w.outOfSample.bar.back();
        j["outOfSample"] = partJson(a, b, bars.time[a], bars.time[b], w.stitched);
    } else {
        j["outOfSample"] = nullptr;
    }
    return j;
}

std::vector<ojson> walkForwardJsonLines(const WalkForwardResult& w, const BarSeries& bars,
                                        const FoldPlan& plan, const TradingReport* trading) {
    std::vector<ojson> lines;
    std::vector<size_t> traded;  // indices into lines of the folds that get figures
    std::vector<FoldBars> windows;
    for (const FoldRecord& r : w.folds) {
        lines.push_back(foldRecordJson(r));
        if (trading && r.end == RunEnd::Completed && r.fold.testFirst >= trading->firstBar &&
            r.fold.testLast <= trading->lastBar) {
            traded.push_back(lines.size() - 1);
            windows.push_back({r.fold.testFirst, r.fold.testLast});
        }
    }
    if (trading) {
        const std::vector<TradingFigures> figures = foldTradingFigures(*trading, windows);
        for (size_t k = 0; k < traded.size() && k < figures.size(); ++k)
            lines[traded[k]]["trading"] = tradingFiguresJson(figures[k]);
    }
    ojson stitched = stitchedJson(w, bars, plan);
    if (trading) stitched["trading"] = tradingReportJson(*trading, true);
    lines.push_back(ojson{{"stitched", stitched}});
    return lines;
}

WalkForwardOutput walkForwardOutput(const WalkForwardResult& w, const BarSeries& bars,
                                    const FoldPlan& plan, const TradingReport* trading) {
    WalkForwardOutput out;
    for (const ojson& line : walkForwardJsonLines(w, bars, plan, trading)) {
        // Through the text, as the report reads a file (ordered_json and json are two types).
        const nlohmann::json j = nlohmann::json::parse(line.dump());
        if (j.contains("stitched"))
            out.stitched = j["stitched"];
        else
            out.folds.push_back(j);
    }
    return out;
}

}  // namespace nnwb
