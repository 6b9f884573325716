// `nnwb-cli walkforward` (and `train`) on a cpcv plan (validation.scheme cpcv): the splits
// trained in turn or on --slots (app/engine/Cpcv.h), each path stitched and traded under the
// experiment's trading settings, and the distribution of the paths' figures printed as a table
// or JSON (docs/walkforward-cpcv.md). CLI thread; Qt-free.
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "app/cli/Commands.h"
#include "app/cli/ParallelFolds.h"
#include "app/cli/RecordingFlags.h"
#include "app/cli/RunErrors.h"
#include "app/cli/WalkForwardRun.h"
#include "app/engine/Cpcv.h"
#include "app/engine/CpcvFigures.h"
#include "app/engine/RunOutcome.h"
#include "model/FigureText.h"
#include "model/PredictionReport.h"
#include "model/data/DateTime.h"
#include "model/overfitting/PathDistribution.h"
#include "model/trading/TradingReportText.h"

namespace nnwb::cli {

namespace {

using ojson = nlohmann::ordered_json;

std::string groupsText(const std::vector<size_t>& groups) {
    std::string s;
    for (size_t g : groups) s += (s.empty() ? "" : ",") + std::to_string(g + 1);
    return s;
}

ojson rangesJson(const std::vector<BarRange>& ranges, const BarSeries& bars) {
    ojson a = ojson::array();
    for (const BarRange& r : ranges)
        a.push_back({{"firstBar", r.first},
                     {"lastBar", r.last},
                     {"from", formatBarTime(bars.time[r.first])},
                     {"to", formatBarTime(bars.time[r.last])}});
    return a;
}

ojson number(double x) {
    return std::isfinite(x) ? ojson(x) : ojson(nullptr);
}

ojson distributionJson(const PathDistribution& d) {
    return {{"count", d.count},           {"missing", d.missing}, {"mean", number(d.mean)},
            {"sd", number(d.sd)},         {"min", number(d.min)}, {"q10", number(d.q10)},
            {"median", number(d.median)}, {"max", number(d.max)}};
}

std::string cell(double x, const char* format = "%.4g") {
    if (!std::isfinite(x)) return "n/a";
    char buf[40];
    std::snprintf(buf, sizeof buf, format, x);
    return buf;
}

struct SplitPrinter : WalkForwardEvents {
    const CpcvPlan* plan = nullptr;
    bool json = false;
    std::string command;
    void foldStarted(const FoldRecord& r) override {
        if (json) return;
        const CpcvSplit& s = plan->splits[r.index];
        std::printf(
            "split %zu/%zu: test groups %s (%zu samples), fitting %zu samples in %zu "
            "blocks, early-stopping validation %zu\n",
            r.index + 1, r.folds, groupsText(s.testGroups).c_str(), s.testSamples(),
            s.trainSamples(), s.train.size(), s.validationSamples());
        std::fflush(stdout);
    }
    void foldEnded(const FoldRecord& r) override {
        if (json) return;
        if (r.end != RunEnd::Completed)
            std::printf("split %zu/%zu: %s after %d epochs\n", r.index + 1, r.folds,
                        foldEndWord(r.end), r.epochs);
        else
            std::printf("split %zu/%zu: %d epochs%s, best %d: test loss %.6f accuracy %s\n",
                        r.index + 1, r.folds, r.epochs, r.stoppedEarly ? " (stopped early)" : "",
                        r.bestEpoch, r.test.loss,
                        accuracyText(r.test.accuracyPct, r.test.signalCount).c_str());
        std::fflush(stdout);
    }
    void warning(const std::string& m) override { stderrWarning(command)(m); }
};

ojson splitJson(const FoldRecord& r, const CpcvSplit& s, const BarSeries& bars) {
    ojson groups = ojson::array();
    for (size_t g : s.testGroups) groups.push_back(g + 1);
    return {{"split", r.index + 1},
            {"splits", r.folds},
            {"name", r.name},
            {"runId", r.runId},
            {"status", foldEndWord(r.end)},
            {"testGroups", groups},
            {"epochs", r.epochs},
            {"bestEpoch", r.bestEpoch},
            {"stoppedEarly", r.stoppedEarly},
            {"train", rangesJson(s.train, bars)},
            {"validation", rangesJson(s.validation, bars)},
            {"test", rangesJson(s.test, bars)},
            {"testFigures", predictionMetricsJson(r.test)}};
}

void printPaths(const CpcvResult& result, const CpcvEvaluation& eval) {
    std::printf("\n%-5s %-22s %10s %8s %8s %7s %11s %9s %9s %10s\n", "path", "splits (group 1..N)",
                "loss", "acc %", "miss %", "trades", "net points", "Sharpe", "annual", "max DD");
    const std::vector<CpcvFigure>& figs = cpcvFigures();
    for (size_t p = 0; p < result.paths.size(); ++p) {
        std::string splits;
        for (size_t s : result.paths[p].splits)
            splits += (splits.empty() ? "" : ",") + std::to_string(s + 1);
        const CpcvPathFigures& f = eval.paths[p];
        std::printf("%-5zu %-22s %10.6f %8s %8s %7s %11s %9s %9s %10s\n", p + 1, splits.c_str(),
                    f.loss, cell(f.accuracy, "%.2f").c_str(), cell(f.missed, "%.2f").c_str(),
                    cell(figs[3].of(f), "%.0f").c_str(), cell(figs[4].of(f), "%.1f").c_str(),
                    cell(figs[5].of(f), "%.4f").c_str(), cell(figs[6].of(f), "%.3f").c_str(),
                    cell(figs[7].of(f), "%.1f").c_str());
    }
    std::printf("\n%-20s %6s %10s %10s %10s %10s %10s %10s\n", "over the paths", "n", "mean", "sd",
                "min", "10 %", "median", "max");
    for (const CpcvFigure& fig : figs) {
        const PathDistribution d = eval.distribution(fig);
        std::printf("%-20s %6zu %10s %10s %10s %10s %10s %10s\n", fig.label, d.count,
                    cell(d.mean).c_str(), cell(d.sd).c_str(), cell(d.min).c_str(),
                    cell(d.q10).c_str(), cell(d.median).c_str(), cell(d.max).c_str());
    }
    std::printf(
        "(each path: every group's test predictions once, from the split named per group; "
        "accuracy n/a below %zu signals, Sharpe n/a without trades; sd: sample deviation; 10 %%: "
        "the lower decile, linear between order statistics)\n%s\n",
        kMinSignalsForAccuracy, cpcvVerdict(eval).c_str());
}

}  // namespace

int runCpcvWalkForward(const Experiment& exp, WalkForward& wf, const WalkForwardOptions& o) {
    const WalkForwardData& data = wf.data();
    const CpcvPlan& plan = data.cpcv;
    if (!o.json)
        std::printf(
            "%s: %s, %zu bars; combinatorial purged cross-validation, %zu groups, %zu test "
            "groups: %zu splits, %zu paths; purge %zu, embargo %zu bars, early-stopping share "
            "%.0f%%\n",
            exp.name.c_str(), data.fileName.c_str(), data.bars->size(), plan.groups,
            plan.testGroups, plan.splits.size(), plan.paths.size(), plan.purge, plan.embargo,
            100.0 * exp.validation.earlyStoppingShare);
    RecordingOptions record = o.record;
    record.experimentFile = o.experimentFile;
    SplitPrinter printer;
    printer.plan = &plan;
    printer.json = o.json;
    printer.command = o.command;
    const std::vector<FoldOutcome> outcomes = asUsageErrors([&] {
        return o.slots.empty() ? runCpcvSplits(wf, record, printer)
                               : runFoldOutcomesInParallel(wf, o.slots, record, printer);
    });
    const CpcvResult result = stitchCpcv(plan, outcomes);
    const CpcvEvaluation eval = evaluateCpcvPaths(result, *data.bars, exp.trading);
    if (o.json) {
        for (const FoldRecord& r : result.splits)
            std::printf("%s\n", splitJson(r, plan.splits[r.index], *data.bars).dump().c_str());
        for (size_t p = 0; p < result.paths.size(); ++p) {
            ojson splits = ojson::array();
            for (size_t s : result.paths[p].splits) splits.push_back(s + 1);
            ojson j = {{"path", p + 1},
                       {"splits", splits},
                       {"outOfSample", predictionMetricsJson(result.paths[p].metrics)}};
            const CpcvPathFigures& f = eval.paths[p];
            j["trading"] = f.traded ? ojson(tradingFiguresJson(f.trading)) : ojson(nullptr);
            std::printf("%s\n", j.dump().c_str());
        }
        ojson dist = ojson::object();
        for (const CpcvFigure& fig : cpcvFigures())
            dist[fig.key] = distributionJson(eval.distribution(fig));
        ojson summary = {{"groups", plan.groups},        {"testGroups", plan.testGroups},
                         {"splits", plan.splits.size()}, {"splitsRun", result.splits.size()},
                         {"paths", result.paths.size()}, {"purge", plan.purge},
                         {"embargo", plan.embargo},      {"status", foldEndWord(result.end)},
                         {"distribution", dist}};
        summary["verdict"] = result.paths.empty() ? ojson(nullptr) : ojson(cpcvVerdict(eval));
        std::printf("%s\n", ojson{{"cpcv", summary}}.dump().c_str());
    } else if (!result.paths.empty()) {
        printPaths(result, eval);
    }
    std::fflush(stdout);
    if (result.end == RunEnd::Failed) throw std::runtime_error(result.error);
    if (!eval.tradingError.empty()) throw UsageError("trading: " + eval.tradingError);
    return 0;
}

}  // namespace nnwb::cli
