// The summary table of a comparison: one row per run (parameters, seconds per epoch,
// samples/s, best and last validation loss / missed % / accuracy %, the trading figures) and, per
// column, which rows hold the best value. Pure computation on RunRecords; any thread. Qt-free.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "app/compare/RunRecord.h"

namespace nnwb {

enum SummaryColumn {
    kParameters,
    kSecondsPerEpoch,
    kSamplesPerSecond,
    kBestLoss,
    kBestMissed,
    kBestAccuracy,
    kLastLoss,
    kLastMissed,
    kLastAccuracy,
    // The trading figures of the validation part with the best epoch's weights (the run's
    // stored trading evaluation, strategy series): net points, profit factor, annualised
    // Sharpe, maximum drawdown points, trades. "n/a" where a run has none.
    kTradeNet,
    kTradeProfitFactor,
    kTradeSharpe,
    kTradeDrawdown,
    kTrades,
    kSummaryColumns
};

struct SummaryColumnInfo {
    const char* header;  // e.g. "best val loss"
    bool lowerIsBetter;
    int decimals;          // for display (significant digits for s/epoch)
    bool ranked = true;    // its best value is marked (not for a count of trades)
    bool trading = false;  // a trading figure: no value shows "n/a"
};
const SummaryColumnInfo& summaryColumnInfo(int column);

struct SummaryRow {
    std::string label, deviceId, deviceName, status;
    int epochs = 0;  // epochs completed
    std::array<std::optional<double>, kSummaryColumns> values;
    std::array<bool, kSummaryColumns> best{};  // the best value of its column (ties all marked)
    // For the accuracy columns: the signals of the epoch shown (best: the best epoch's; where
    // no epoch has enough, the most any epoch emitted).
    std::array<std::optional<size_t>, kSummaryColumns> signalCounts;
};

// Means of seconds and samples/s over the epochs done; best = lowest loss and missed, highest
// accuracy over the validation figures of every epoch; last = the last epoch's. Accuracy is
// NaN ("n/a") where the network emitted fewer than kMinSignalsForAccuracy signals (in every
// epoch, for best; model/FigureText.h). A column is marked only where at least two runs have a
// value and the values differ.
std::vector<SummaryRow> summarize(const std::vector<RunRecord>& runs);

// "12.35", "1,234,567" (model/FigureText.h), "–" for no value, "n/a" for NaN.
std::string formatSummaryValue(int column, const std::optional<double>& value);
// The table cell: formatSummaryValue, and for accuracy the signal count ("55.00 (40)",
// "n/a (3)").
std::string formatSummaryCell(const SummaryRow& row, int column);

}  // namespace nnwb
