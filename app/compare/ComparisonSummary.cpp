#include "app/compare/ComparisonSummary.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "app/runs/StoredTrading.h"
#include "model/FigureText.h"

namespace nnwb {

namespace {

const SummaryColumnInfo kColumns[kSummaryColumns] = {
    {"parameters", true, 0},
    {"s/epoch", true, 3},
    {"samples/s", false, 0},
    {"best val loss", true, 5},
    {"best val missed %", true, 2},
    {"best val acc % (signals)", false, 2},
    {"last val loss", true, 5},
    {"last val missed %", true, 2},
    {"last val acc % (signals)", false, 2},
    {"trade net pts", false, 1, true, true},
    {"profit factor", false, 2, true, true},
    {"Sharpe (ann.)", false, 2, true, true},
    {"max drawdown pts", true, 1, true, true},
    {"trades", false, 0, false, true},
};

std::optional<double> bestOf(const std::vector<EpochReport>& epochs,
                             double (*get)(const EpochReport&), bool lowerIsBetter) {
    std::optional<double> best;
    for (const EpochReport& r : epochs) {
        const double v = get(r);
        if (!std::isfinite(v)) continue;
        if (!best || (lowerIsBetter ? v < *best : v > *best)) best = v;
    }
    return best;
}

double valLoss(const EpochReport& r) {
    return r.validation.loss;
}
double valMissed(const EpochReport& r) {
    return r.validation.missedPct;
}
// NaN (n/a) for an epoch whose network emitted too few signals: accuracy is a share of them.
double accuracyOf(const EpochMetrics& m) {
    return accuracyShown(m.signalCount) ? m.accuracyPct : std::numeric_limits<double>::quiet_NaN();
}

// The epoch of the best validation accuracy, else (none with enough signals) the one with the
// most signals; null without epochs.
const EpochReport* bestAccuracyEpoch(const std::vector<EpochReport>& epochs) {
    const EpochReport* best = nullptr;
    for (const EpochReport& r : epochs) {
        const double v = accuracyOf(r.validation);
        if (!best) {
            best = &r;
            continue;
        }
        const double b = accuracyOf(best->validation);
        if (std::isnan(b)
                ? !std::isnan(v) || r.validation.signalCount > best->validation.signalCount
                : !std::isnan(v) && v > b)
            best = &r;
    }
    return best;
}

SummaryRow rowOf(const RunRecord& run) {
    SummaryRow row;
    row.label = run.label;
    row.deviceId = run.deviceId;
    row.deviceName = run.deviceName;
    row.status = run.statusText();
    row.epochs = static_cast<int>(run.epochs.size());
    auto& v = row.values;
    if (run.parameters > 0) v[kParameters] = static_cast<double>(run.parameters);
    v[kTradeNet] = storedTradingFigure(run.trading, "netPoints");
    v[kTradeProfitFactor] = storedTradingFigure(run.trading, "profitFactor");
    v[kTradeSharpe] = storedTradingFigure(run.trading, "sharpeAnnual");
    v[kTradeDrawdown] = storedTradingFigure(run.trading, "maxDrawdownPoints");
    v[kTrades] = storedTradingFigure(run.trading, "trades");
    if (run.epochs.empty()) return row;
    double seconds = 0, rate = 0;
    for (const EpochReport& r : run.epochs) seconds += r.seconds, rate += r.samplesPerSecond;
    const double n = static_cast<double>(run.epochs.size());
    v[kSecondsPerEpoch] = seconds / n;
    v[kSamplesPerSecond] = rate / n;
    if (!run.hasValidation()) return row;
    const EpochReport& last = run.epochs.back();
    v[kBestLoss] = bestOf(run.epochs, valLoss, true);
    v[kLastLoss] = last.validation.loss;
    if (last.taskMetrics) {
        v[kBestMissed] = bestOf(run.epochs, valMissed, true);
        const EpochReport* best = bestAccuracyEpoch(run.epochs);
        v[kBestAccuracy] = accuracyOf(best->validation);
        row.signalCounts[kBestAccuracy] = best->validation.signalCount;
        v[kLastMissed] = last.validation.missedPct;
        v[kLastAccuracy] = accuracyOf(last.validation);
        row.signalCounts[kLastAccuracy] = last.validation.signalCount;
    }
    return row;
}

}  // namespace

const SummaryColumnInfo& summaryColumnInfo(int column) {
    return kColumns[column];
}

std::vector<SummaryRow> summarize(const std::vector<RunRecord>& runs) {
    std::vector<SummaryRow> rows;
    for (const RunRecord& run : runs) rows.push_back(rowOf(run));
    for (int c = 0; c < kSummaryColumns; ++c) {
        if (!kColumns[c].ranked) continue;
        std::optional<double> best, worst;
        for (const SummaryRow& row : rows) {
            const auto& v = row.values[c];
            if (!v || !std::isfinite(*v)) continue;
            const bool better = kColumns[c].lowerIsBetter ? *v < best.value_or(HUGE_VAL)
                                                          : *v > best.value_or(-HUGE_VAL);
            if (!best || better) best = *v;
            if (!worst || (kColumns[c].lowerIsBetter ? *v > *worst : *v < *worst)) worst = *v;
        }
        if (!best || *best == *worst) continue;  // fewer than two values, or all the same
        for (SummaryRow& row : rows) row.best[c] = row.values[c] && *row.values[c] == *best;
    }
    return rows;
}

std::string formatSummaryValue(int column, const std::optional<double>& value) {
    // A trading figure with its whole part grouped, as the window shows it ("-17,796.0").
    if (kColumns[column].trading)
        return value && !std::isnan(*value) ? groupedFixed(*value, kColumns[column].decimals)
                                            : storedTradingText(value, kColumns[column].decimals);
    if (value && std::isnan(*value)) return "n/a";  // e.g. accuracy without a signal
    if (!value || !std::isfinite(*value)) return "–";
    char buf[64];
    if (column == kParameters || column == kSamplesPerSecond)
        return groupedCount(std::llround(*value));
    if (column == kSecondsPerEpoch && *value >= 999.5)  // whole seconds, not "1.23e+03"
        return groupedCount(std::llround(*value));
    if (column == kSecondsPerEpoch)  // three significant digits: 0.0123, 1.23, 123
        std::snprintf(buf, sizeof buf, "%.*g", kColumns[column].decimals, *value);
    else
        std::snprintf(buf, sizeof buf, "%.*f", kColumns[column].decimals, *value);
    return buf;
}

std::string formatSummaryCell(const SummaryRow& row, int column) {
    const std::optional<size_t>& count = row.signalCounts[column];
    const std::optional<double>& value = row.values[column];
    if (!count || !value) return formatSummaryValue(column, value);
    return accuracyCell(*value, *count);  // "n/a (3)" below the minimum
}

}  // namespace nnwb
