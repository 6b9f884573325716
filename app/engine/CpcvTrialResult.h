// What a sweep trial on a cpcv experiment reports (docs/walkforward-cpcv.md "In sweeps"): the
// trading JSON of its "result" line, whose "strategy" figures are the means over the paths,
// whose "pathStatistics" hold every figure's mean, median, lower decile (q10), minimum and
// maximum over the paths (an objective's "paths" key picks one), and whose "returnSeries" is the
// per-bar mean of the paths' returns (what PBO and `sweep export --returns` read); and the
// out-of-sample task figures, the paths' means. Qt-free; any thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/engine/CpcvFigures.h"
#include "model/Metrics.h"

namespace nnwb {

// mean, median, q10, min, max: the statistics an objective's "paths" key names.
const std::vector<std::string>& cpcvPathStatistics();
// Statistic `name` of d; none when d counts no value or the name is not one of them.
std::optional<double> pathStatistic(const PathDistribution& d, const std::string& name);

// {"part": "cpcvPaths", "paths", "range", "strategy", "pathStatistics": {STAT: {FIGURE}},
// "settings", "returnSeries"}: FIGURE every key of tradingFiguresJson plus loss, accuracy and
// missed (the trial protocol's keys), null where no path has it; "returnSeries" only when every
// path traded over the same bars. {"error": why} when no path could be traded.
nlohmann::json cpcvTrialTrading(const CpcvEvaluation& evaluation, const TradingSettings& settings);
// The paths' mean loss, accuracy % and missed % (samples: one path's).
EpochMetrics cpcvTrialOutOfSample(const CpcvResult& result, const CpcvEvaluation& evaluation);

}  // namespace nnwb
