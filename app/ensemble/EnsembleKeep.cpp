#include "app/ensemble/EnsembleKeep.h"

#include <algorithm>

#include "app/runs/RunReturns.h"
#include "compute/ComputeError.h"
#include "model/ModelBundle.h"
#include "model/PopulationSpec.h"
#include "model/trading/PredictionSignals.h"
#include "model/trading/TradingEvaluation.h"
#include "model/trading/TradingReportText.h"

namespace nnwb {

namespace {

void putValidation(EnsembleMember& m, const EpochMetrics& e) {
    m.hasValidation = true;
    m.validationLoss = e.loss;
    m.validationAccuracy = e.accuracyPct;
    m.validationMissed = e.missedPct;
}

// Predicts the validation part with every member and the ensemble; fills the members'
// validation figures.
EnsembleValidation validateEnsemble(EnsembleBundle& b, const ExperimentData& data,
                                    const std::string& device) {
    EnsembleValidation v;
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

// The kept ensemble's trading figures as a run stores them (StoredRun::trading); null when
// there is nothing to trade.
nlohmann::json storedTrading(RunEngine& run, const EnsembleValidation& v, const EnsembleBundle& b) {
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

}  // namespace

std::vector<Experiment> seedEnsembleMembers(const Experiment& base, int n,
                                            const std::string& what) {
    if (n < 2)
        throw EnsembleError(what + ": an ensemble needs at least 2 members, not " +
                            std::to_string(n));
    const uint64_t s = base.training.seed;
    try {
        return populationMembers(
            base, n, {"seed=" + std::to_string(s) + ".." + std::to_string(s + uint64_t(n) - 1)});
    } catch (const PopulationSpecError& e) {
        throw EnsembleError(what + ": " + e.what());
    }
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

KeptEnsemble keepEnsembleBundle(RunEngine& run, const std::string& file, const std::string& name) {
    KeptEnsemble k;
    try {
        k.bundle = ensembleOf(run);
        if (!name.empty()) k.bundle.common.experiment = name;
        k.validation = validateEnsemble(k.bundle, run.data(), run.experiment().training.device);
        k.bundle.save(file);
    } catch (const ModelBundleError& e) {
        throw EnsembleError(file + ": " + e.what());
    } catch (const PredictionInputError& e) {
        throw EnsembleError(e.what());
    } catch (const ComputeError& e) {
        throw EnsembleError(e.what());
    }
    k.trading = storedTrading(run, k.validation, k.bundle);
    return k;
}

std::pair<size_t, size_t> bestAndMedianMember(const EnsembleBundle& b) {
    std::vector<double> losses;
    for (const auto& m : b.members) losses.push_back(m.validationLoss);
    return bestAndMedianOf(losses);
}

std::pair<size_t, size_t> bestAndMedianOf(const std::vector<double>& losses) {
    std::vector<size_t> order(losses.size());
    for (size_t m = 0; m < order.size(); ++m) order[m] = m;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t x, size_t y) { return losses[x] < losses[y]; });
    // The upper of the two middle ones for an even count: never the best member when there are
    // two or more (with 2 members, the other one).
    return {order.front(), order[order.size() / 2]};
}

double meanAgreement(const PredictionResult& r) {
    double sum = 0;
    for (const PredictionRow& row : r.rows) sum += row.agreement;
    return r.rows.empty() ? 1.0 : sum / double(r.rows.size());
}

}  // namespace nnwb
