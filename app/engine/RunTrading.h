// The trading figures a run stores (issue 30): the validation part's signals with the best
// epoch's weights, traded under the experiment's trading settings (docs/trading.md), as the
// JSON that StoredRun::trading and `nnwb-cli runs` show. Called by RunEngine::finish on the
// thread that owns the run's backend; Qt-free.
#pragma once

#include <nlohmann/json.hpp>

#include "model/EpochKeeper.h"
#include "model/ExperimentData.h"
#include "model/Trainer.h"
#include "model/trading/TradingSettings.h"

namespace nnwb {

// tradingReportJson (range, point, spreadFrom, strategy, buyAndHold, random) plus "part":
// "validation", "epoch" (the best epoch) and "settings"; {"error": why} when the evaluation
// failed; null when there is nothing to trade (synthetic data, no validation part, no epoch
// kept, not three outputs). The network's weights are the latest again afterwards (the best
// epoch's are put on it for the one pass), so training continues bit-identically.
nlohmann::json validationTrading(Network& net, Trainer& trainer, const EpochKeeper& keeper,
                                 const ExperimentData& data, const TradingSettings& settings);
// The same for every model of a population (keepers[m] keeps model m), from one evaluation
// pass with every model's best epoch on: one figure per model, in order.
std::vector<nlohmann::json> validationTradingAll(Network& net, Trainer& trainer,
                                                 const std::vector<const EpochKeeper*>& keepers,
                                                 const ExperimentData& data,
                                                 const TradingSettings& settings);

}  // namespace nnwb
