#include "app/engine/RunTrading.h"

#include <exception>

#include "app/runs/RunReturns.h"
#include "model/trading/TradingEvaluation.h"
#include "model/trading/TradingReportText.h"
#include "model/trading/ValidationSignals.h"

namespace nnwb {

namespace {

// Every model's validation signals with its best epoch's weights (a model without one keeps
// its latest); the latest weights back afterwards.
std::vector<SignalSeries> bestEpochSignals(Network& net, Trainer& trainer,
                                           const std::vector<const EpochKeeper*>& keepers,
                                           const ExperimentData& data) {
    // Always put the best epoch's weights on: a stopped run's latest weights may be those of
    // an epoch cut short, even when the best epoch is the last completed one.
    const int done = trainer.epochsDone();
    std::vector<WeightsSnapshot> latest(keepers.size());
    std::string problem;
    for (size_t m = 0; m < keepers.size(); ++m)
        if (!latest[m].capture(net, done, &problem, static_cast<int>(m)))
            throw std::runtime_error("cannot keep the latest weights: " + problem);
    auto putLatestBack = [&] {
        for (size_t m = 0; m < keepers.size(); ++m) latest[m].restore(net, static_cast<int>(m));
    };
    for (size_t m = 0; m < keepers.size(); ++m)
        if (!keepers[m]->best().empty()) keepers[m]->best().restore(net, static_cast<int>(m));
    try {
        std::vector<SignalSeries> s = validationSignalsAll(trainer, data);
        putLatestBack();
        return s;
    } catch (...) {
        putLatestBack();
        throw;
    }
}

}  // namespace

nlohmann::json validationTrading(Network& net, Trainer& trainer, const EpochKeeper& keeper,
                                 const ExperimentData& data, const TradingSettings& settings) {
    return validationTradingAll(net, trainer, {&keeper}, data, settings).front();
}

std::vector<nlohmann::json> validationTradingAll(Network& net, Trainer& trainer,
                                                 const std::vector<const EpochKeeper*>& keepers,
                                                 const ExperimentData& data,
                                                 const TradingSettings& settings) {
    std::vector<nlohmann::json> out(keepers.size());
    bool any = false;
    for (const EpochKeeper* k : keepers) any = any || !k->best().empty();
    if (!data.priceData || !data.bars || !any || data.split.validation.size() == 0 ||
        data.split.validation.outputs != 3)
        return out;
    std::vector<SignalSeries> signals;
    try {
        signals = bestEpochSignals(net, trainer, keepers, data);
    } catch (const std::exception& e) {
        for (size_t m = 0; m < keepers.size(); ++m)
            if (!keepers[m]->best().empty()) out[m] = {{"error", e.what()}};
        return out;
    }
    for (size_t m = 0; m < keepers.size(); ++m) {
        const WeightsSnapshot& best = keepers[m]->best();
        if (best.empty() || signals[m].empty()) continue;
        try {
            const TradingReport report = evaluateTrading(*data.bars, signals[m], settings);
            nlohmann::json j = tradingReportJson(report);
            j["part"] = "validation";
            j["epoch"] = best.epoch();
            j["settings"] = settings.toJson();
            j["returnSeries"] = returnSeriesJson(report.equity);  // RunStore keeps it apart
            out[m] = std::move(j);
        } catch (const std::exception& e) {
            out[m] = {{"error", e.what()}};
        }
    }
    return out;
}

}  // namespace nnwb
