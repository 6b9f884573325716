#include "app/cli/EnsembleTrain.h"

#include <algorithm>
#include <cstdio>

#include "app/cli/Commands.h"
#include "compute/ComputeError.h"
#include "model/ModelBundle.h"
#include "model/ensemble/EnsemblePrediction.h"

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

// Predicts the validation part with every member and the ensemble; fills the members'
// validation figures and returns the ensemble's prediction (no rows without validation).
PredictionResult validateEnsemble(EnsembleBundle& b, const ExperimentData& data,
                                  const std::string& device) {
    if (data.split.validation.size() == 0 || b.common.validationFirst == 0) return {};
    const PredictionInputs in = buildPredictionInputs(
        b.common, *data.bars, b.common.validationFirst, b.common.validationLast);
    EnsemblePredictor predictor(b, device);
    std::vector<PredictionResult> members;
    for (size_t m = 0; m < b.size(); ++m) {
        members.push_back(predictor.member(m).run(in, *data.bars));
        putValidation(b.members[m], members.back().metrics);
    }
    return combinePredictions(members, in, lossFromName(b.common.loss));
}

double meanAgreement(const PredictionResult& r) {
    double sum = 0;
    for (const PredictionRow& row : r.rows) sum += row.agreement;
    return r.rows.empty() ? 1.0 : sum / double(r.rows.size());
}

}  // namespace

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

int keepEnsemble(RunEngine& run, int status, const EnsembleTrainOptions& o) {
    if (status != 0) {
        std::fprintf(stderr, "ensemble: not kept (a member failed); %s is unchanged\n",
                     o.saveModel.c_str());
        return status;
    }
    EnsembleBundle b;
    PredictionResult combined;
    try {
        b = ensembleOf(run);
        if (!o.name.empty()) b.common.experiment = o.name;
        combined = validateEnsemble(b, run.data(), run.experiment().training.device);
        b.save(o.saveModel);
    } catch (const ModelBundleError& e) {
        throw UsageError(o.saveModel + ": " + e.what());
    } catch (const PredictionInputError& e) {
        throw UsageError(e.what());
    } catch (const ComputeError& e) {
        throw UsageError(e.what());
    }
    const bool val = !combined.rows.empty();
    const auto [best, median] = bestAndMedian(b);
    if (o.json) {
        nlohmann::json j = {{"members", b.size()}, {"file", o.saveModel}};
        if (val) {
            j["validation"] = figuresJson(combined.metrics);
            j["validation"]["meanAgreement"] = meanAgreement(combined);
            j["bestMember"] = best + 1;
            j["medianMember"] = median + 1;
        }
        std::printf("%s\n", nlohmann::json{{"ensemble", j}}.dump().c_str());
    } else if (val) {
        const EpochMetrics& e = combined.metrics;
        const EnsembleMember &bm = b.members[best], &mm = b.members[median];
        std::printf(
            "ensemble of %zu: validation loss %.6f  accuracy %.2f%%  missed %.2f%%  mean "
            "agreement %.3f\n  best member %zu: loss %.6f  accuracy %.2f%%  missed %.2f%%\n  "
            "median member %zu: loss %.6f  accuracy %.2f%%  missed %.2f%%\n",
            b.size(), e.loss, e.accuracyPct, e.missedPct, meanAgreement(combined), best + 1,
            bm.validationLoss, bm.validationAccuracy, bm.validationMissed, median + 1,
            mm.validationLoss, mm.validationAccuracy, mm.validationMissed);
    }
    if (!o.json)
        std::printf("wrote %s (an ensemble of %zu members)\n", o.saveModel.c_str(), b.size());
    std::fflush(stdout);
    return 0;
}

}  // namespace nnwb::cli
