#include "app/engine/RunTrading.h"

#include <exception>

#include "model/trading/TradingEvaluation.h"
#include "model/trading/TradingReportText.h"
#include "model/trading/ValidationSignals.h"

namespace nnwb {

namespace {

// The validation signals with the best epoch's weights; the latest weights back afterwards.
SignalSeries bestEpochSignals(Network& net, Trainer& trainer, const WeightsSnapshot& best,
                              const ExperimentData& data) {
    // Always put the best epoch's weights on: a stopped run's latest weights may be those of
    // an epoch cut short, even when the best epoch is the last completed one.
    const int done = trainer.epochsDone();
    WeightsSnapshot latest;
    std::string problem;
    if (!latest.capture(net, done, &problem))
        throw std::runtime_error("cannot keep the latest weights: " + problem);
    best.restore(net);
    try {
        SignalSeries s = validationSignals(trainer, data);
        latest.restore(net);
        return s;
    } catch (...) {
        latest.restore(net);
        throw;
    }
}

}  // namespace

nlohmann::json validationTrading(Network& net, Trainer& trainer, const EpochKeeper& keeper,
                                 const ExperimentData& data, const TradingSettings& settings) {
    const WeightsSnapshot& best = keeper.best();
    if (!data.priceData || !data.bars || best.empty() || data.split.validation.size() == 0 ||
        data.split.validation.outputs != 3)
        return nullptr;
    try {
        const SignalSeries signals = bestEpochSignals(net, trainer, best, data);
        if (signals.empty()) return nullptr;
        const TradingReport report = evaluateTrading(*data.bars, signals, settings);
        nlohmann::json j = tradingReportJson(report);
        j["part"] = "validation";
        j["epoch"] = best.epoch();
        j["settings"] = settings.toJson();
        return j;
    } catch (const std::exception& e) {
        return {{"error", e.what()}};
    }
}

}  // namespace nnwb
