#include "app/cli/EnsembleTrain.h"

#include <cmath>
#include <cstdio>

#include "app/cli/Commands.h"
#include "app/cli/RecordingFlags.h"
#include "model/FigureText.h"
#include "model/trading/PredictionSignals.h"
#include "model/trading/TradingEvaluation.h"

namespace nnwb::cli {

namespace {

nlohmann::json figuresJson(const EpochMetrics& e) {
    return {{"loss", e.loss}, {"accuracy", e.accuracyPct}, {"missed", e.missedPct}};
}

// The strategy's figures of a prediction traded under `settings` (minAgreement applies to the
// ensemble's signals only: a member's always agree); null when the bars cannot be traded.
nlohmann::json tradedJson(const BarSeries& bars, const PredictionResult& r,
                          const TradingSettings& settings) {
    try {
        const TradingFigures f = evaluateTrading(bars, signalsOf(r), settings).strategy;
        return {{"trades", f.trades},
                {"netPoints", f.netPoints},
                {"winRate", f.winRate},
                {"profitFactor", f.profitFactor}};
    } catch (const TradingInputError&) {
        return nullptr;
    }
}

std::string tradedText(const nlohmann::json& t) {
    if (t.is_null()) return "";
    char buf[160];
    std::snprintf(buf, sizeof buf, "  trading: %s trades, net %s points, win rate %.2f%%",
                  groupedCount(std::llround(t["trades"].get<double>())).c_str(),
                  groupedCount(std::llround(t["netPoints"].get<double>())).c_str(),
                  t["winRate"].get<double>());
    return buf;
}

// The ensemble against its best and median member on the validation part: the task figures
// and the trading evaluation under the experiment's trading settings, side by side (printed
// unless `json`); returns them as JSON.
nlohmann::json compareMembers(const EnsembleBundle& b, const EnsembleValidation& v, RunEngine& run,
                              bool json) {
    const auto [best, median] = bestAndMedianMember(b);
    const BarSeries& bars = *run.data().bars;
    const TradingSettings& settings = run.experiment().trading;
    struct Row {
        std::string label;
        const PredictionResult* r;
    };
    const std::vector<Row> rows = {
        {"ensemble of " + std::to_string(b.size()), &v.combined},
        {"best member " + std::to_string(best + 1), &v.members[best]},
        {"median member " + std::to_string(median + 1), &v.members[median]}};
    nlohmann::json j = nlohmann::json::object();
    for (size_t k = 0; k < rows.size(); ++k) {
        const EpochMetrics& e = rows[k].r->metrics;
        const nlohmann::json traded = tradedJson(bars, *rows[k].r, settings);
        const char* key = k == 0 ? "validation" : k == 1 ? "bestMember" : "medianMember";
        j[key] = figuresJson(e);
        j[key]["trading"] = traded;
        if (k > 0) j[key]["member"] = (k == 1 ? best : median) + 1;
        char agreement[48] = "";
        if (k == 0)
            std::snprintf(agreement, sizeof agreement, "  mean agreement %.3f",
                          meanAgreement(v.combined));
        if (!json)
            std::printf("%s%s: validation loss %.6f  accuracy %s  missed %.2f%%%s%s\n",
                        k ? "  " : "", rows[k].label.c_str(), e.loss,
                        accuracyText(e.accuracyPct, e.signalCount).c_str(), e.missedPct, agreement,
                        tradedText(traded).c_str());
    }
    j["validation"]["meanAgreement"] = meanAgreement(v.combined);
    j["minAgreement"] = settings.minAgreement;
    return j;
}

}  // namespace

KeptEnsemble keepTrialEnsemble(RunEngine& run, const std::string& file, const std::string& name) {
    try {
        return keepEnsembleBundle(run, file, name);
    } catch (const EnsembleError& e) {
        throw UsageError(e.what());
    }
}

void wireEnsemble(PopulationTrainOptions& p, const EnsembleTrainOptions& o) {
    auto curve = std::make_shared<std::unique_ptr<EnsembleCurve>>();
    p.before = [curve](RunEngine& run) {
        run.trainer().setKeepValidationOutputs(true);
        *curve = std::make_unique<EnsembleCurve>(size_t(run.models()), run.data().split.validation,
                                                 run.experiment().training.loss);
    };
    p.epoch = [curve](const EpochReport& r) {
        if (*curve) (*curve)->add(r);
    };
    const RecordingOptions record = p.record;
    p.after = [o, curve, record](RunEngine& run, int status) {
        return keepEnsemble(run, status, o, curve->get(), record);
    };
}

void checkEnsembleOptions(int models, const EnsembleTrainOptions& o) {
    if (models < 2)
        throw UsageError("--ensemble: an ensemble needs at least 2 members, not --population " +
                         std::to_string(models));
    if (o.saveModel.empty())
        throw UsageError("--ensemble: needs --save-model FILE (the ensemble bundle to write)");
}

int keepEnsemble(RunEngine& run, int status, const EnsembleTrainOptions& o,
                 const EnsembleCurve* curve, const RecordingOptions& record) {
    if (status != 0) {
        std::fprintf(stderr, "ensemble: not kept (a member failed); %s is unchanged\n",
                     o.saveModel.c_str());
        return status;
    }
    const KeptEnsemble k = keepTrialEnsemble(run, o.saveModel, o.name);
    const EnsembleBundle& b = k.bundle;
    const EnsembleValidation& v = k.validation;
    nlohmann::json j =
        v.combined.rows.empty() ? nlohmann::json::object() : compareMembers(b, v, run, o.json);
    j["members"] = b.size();
    j["file"] = o.saveModel;
    if (curve) {
        EnsembleRunFacts facts{o.saveModel, b.common.epoch, k.trading};
        const int64_t id =
            recordEnsembleRun(run, *curve, record, o.name, facts, stderrWarning("train")).id;
        if (id > 0) j["run"] = id;
        if (id > 0 && !o.json) std::printf("ensemble recorded as run %lld\n", (long long)id);
    }
    if (o.json) std::printf("%s\n", nlohmann::json{{"ensemble", j}}.dump().c_str());
    if (!o.json)
        std::printf("wrote %s (an ensemble of %zu members)\n", o.saveModel.c_str(), b.size());
    std::fflush(stdout);
    return 0;
}

}  // namespace nnwb::cli
