#include "app/cli/EnsembleTrain.h"

#include <algorithm>
#include <cstdio>

#include "app/cli/Commands.h"
#include "app/cli/RecordingFlags.h"
#include "app/runs/RunReturns.h"
#include "compute/ComputeError.h"
#include "model/FigureText.h"
#include "model/ModelBundle.h"
#include "model/ensemble/EnsemblePrediction.h"
#include "model/trading/PredictionSignals.h"
#include "model/trading/TradingEvaluation.h"
#include "model/trading/TradingReportText.h"

namespace nnwb::cli {

namespace {

void putValidation(EnsembleMember& m, const EpochMetrics& e) {
    m.hasValidation = true;
    m.validationLoss = e.loss;
    m.validationAccuracy = e.accuracyPct;
    m.validationMissed = e.missedPct;
}

nlohmann::json figuresJson(const EpochMetrics& e) {
    return {{"loss", e.loss}, {"accuracy", e.accuracyPct}, {"missed", e.missedPct}};
}

// The member with the lowest validation loss and the median one (the lower of the middle two).
std::pair<size_t, size_t> bestAndMedian(const EnsembleBundle& b) {
    std::vector<size_t> order(b.size());
    for (size_t m = 0; m < order.size(); ++m) order[m] = m;
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
        return b.members[x].validationLoss < b.members[y].validationLoss;
    });
    return {order.front(), order[(order.size() - 1) / 2]};
}

// The validation part predicted by every member and by the ensemble (no rows without one).
struct Validation {
    std::vector<PredictionResult> members;
    PredictionResult combined;
};

// Predicts the validation part with every member and the ensemble; fills the members'
// validation figures.
Validation validateEnsemble(EnsembleBundle& b, const ExperimentData& data,
                            const std::string& device) {
    Validation v;
    if (data.split.validation.size() == 0 || b.common.validationFirst == 0) return v;
    const PredictionInputs in = buildPredictionInputs(
        b.common, *data.bars, b.common.validationFirst, b.common.validationLast);
    EnsemblePredictor predictor(b, device);
    for (size_t m = 0; m < b.size(); ++m) {
        v.members.push_back(predictor.member(m).run(in, *data.bars));
        putValidation(b.members[m], v.members.back().metrics);
    }
    v.combined = combinePredictions(v.members, in, lossFromName(b.common.loss));
    return v;
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

double meanAgreement(const PredictionResult& r) {
    double sum = 0;
    for (const PredictionRow& row : r.rows) sum += row.agreement;
    return r.rows.empty() ? 1.0 : sum / double(r.rows.size());
}

// The ensemble against its best and median member on the validation part: the task figures
// and the trading evaluation under the experiment's trading settings, side by side (printed
// unless `json`); returns them as JSON.
nlohmann::json compareMembers(const EnsembleBundle& b, const Validation& v, RunEngine& run,
                              bool json) {
    const auto [best, median] = bestAndMedian(b);
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

// The kept ensemble's trading figures as a run stores them (StoredRun::trading); null when
// there is nothing to trade.
nlohmann::json storedTrading(RunEngine& run, const Validation& v, const EnsembleBundle& b) {
    if (v.combined.rows.empty() || !run.data().priceData) return nullptr;
    const TradingSettings& settings = run.experiment().trading;
    try {
        const TradingReport report =
            evaluateTrading(*run.data().bars, signalsOf(v.combined), settings);
        nlohmann::json j = tradingReportJson(report);
        j["part"] = "validation";
        j["epoch"] = b.common.epoch;
        j["settings"] = settings.toJson();
        j["returnSeries"] = returnSeriesJson(report.equity);
        return j;
    } catch (const std::exception& e) {
        return {{"error", e.what()}};
    }
}

// The kept ensemble of `run` named `name` into `b`, its validation part predicted into `v`,
// saved to `file`; bad input (synthetic data, a bundle that cannot be written, a device
// failure) as UsageError.
void saveEnsemble(RunEngine& run, const std::string& file, const std::string& name,
                  EnsembleBundle& b, Validation& v) {
    try {
        b = ensembleOf(run);
        if (!name.empty()) b.common.experiment = name;
        v = validateEnsemble(b, run.data(), run.experiment().training.device);
        b.save(file);
    } catch (const ModelBundleError& e) {
        throw UsageError(file + ": " + e.what());
    } catch (const PredictionInputError& e) {
        throw UsageError(e.what());
    } catch (const ComputeError& e) {
        throw UsageError(e.what());
    }
}

}  // namespace

KeptEnsemble keepTrialEnsemble(RunEngine& run, const std::string& file, const std::string& name) {
    KeptEnsemble k;
    Validation v;
    saveEnsemble(run, file, name, k.bundle, v);
    k.trading = storedTrading(run, v, k.bundle);
    return k;
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

EnsembleBundle ensembleOf(RunEngine& run) {
    EnsembleBundle b;
    int latest = 0;
    for (int m = 0; m < run.models(); ++m) {
        const WeightsSnapshot& w = run.keeperOf(m).result();
        b.weights.push_back(w.tensors());
        EnsembleMember e;
        e.name = run.experimentOf(m).name;
        e.seed = run.experimentOf(m).training.seed;
        e.epoch = w.epoch();
        latest = std::max(latest, e.epoch);
        b.members.push_back(e);
    }
    b.common = makeModelBundle(run.experiment(), run.data(), {}, run.network().toJson(), latest);
    return b;
}

int keepEnsemble(RunEngine& run, int status, const EnsembleTrainOptions& o,
                 const EnsembleCurve* curve, const RecordingOptions& record) {
    if (status != 0) {
        std::fprintf(stderr, "ensemble: not kept (a member failed); %s is unchanged\n",
                     o.saveModel.c_str());
        return status;
    }
    EnsembleBundle b;
    Validation v;
    saveEnsemble(run, o.saveModel, o.name, b, v);
    nlohmann::json j =
        v.combined.rows.empty() ? nlohmann::json::object() : compareMembers(b, v, run, o.json);
    j["members"] = b.size();
    j["file"] = o.saveModel;
    if (curve) {
        EnsembleRunFacts facts{o.saveModel, b.common.epoch, storedTrading(run, v, b)};
        const int64_t id =
            recordEnsembleRun(run, *curve, record, o.name, facts, stderrWarning("train"));
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
