// The per-bar returns of a run's trading evaluation (issue 45), kept beside its trading figures
// for the overfitting diagnostics of a sweep (model/overfitting/Cscv.h, docs/overfitting.md):
// the equity differences r_i = pct[i] - pct[i-1] of the evaluated range (TradingReport.h), each
// at its bar's time. They travel inside the trading JSON as "returnSeries" and RunStore keeps
// them in the run_returns table instead. Functions of one connection's thread; Qt-free.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/trading/TradingReport.h"

namespace SQLite {
class Database;
}

namespace nnwb {

class RunStore;

struct ReturnSeries {
    std::vector<int64_t> time;  // the bar's time (UTC seconds) of each return
    std::vector<double> pct;    // the return, percentage points of the % equity
};

// The returns of `equity` (one fewer than its bars): {"time": [...], "pct": [...]}.
nlohmann::json returnSeriesJson(const TradingEquity& equity);
// Removes "returnSeries" from a trading JSON and reads it; none when it has none. Throws
// std::invalid_argument naming the key when it is malformed (arrays of unequal length, not
// numbers).
std::optional<ReturnSeries> takeReturnSeries(nlohmann::json& trading);

// Stores (replaces) run `runId`'s returns; inside the caller's lock and transaction.
void writeReturnSeries(SQLite::Database& db, int64_t runId, const ReturnSeries& series);
// The stored returns of those of `runIds` that have some, under the store's read lock. Throws
// RunStoreError for a damaged row (blob sizes that do not match its count).
std::map<int64_t, ReturnSeries> readReturnSeries(RunStore& store,
                                                 const std::vector<int64_t>& runIds);

}  // namespace nnwb
