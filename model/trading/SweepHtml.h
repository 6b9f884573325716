// The tear sheet of a sweep (`nnwb-cli report --sweep ID --html OUT`, File ▸ Export Report on the
// Sweeps tab): one self-contained HTML page (inline SVG, no scripts, no external references)
// from the report `nnwb-cli sweep show --json` prints (app/sweep/SweepReport.h with its
// deflatedSharpe and overfitting objects): the summary, the verdict of the best trial's trading
// with the deflated Sharpe ratio, its figures, the leaderboard, the parallel coordinates of the
// trials, parameter importance, the deflated Sharpe ratio, PBO when present, the Pareto front.
// Pure functions; any thread.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nnwb {

struct SweepReportInput {
    nlohmann::json report;                // sweep show --json's object
    nlohmann::json bestTrading;           // the stored trading JSON of the best trial's run; null
    std::vector<std::string> parameters;  // the spec's parameter paths in order (axes)
    std::string source;                   // where it came from ("runs.sqlite"), for the summary
};

std::string sweepHtml(const SweepReportInput& in);

// The parallel-coordinates chart as one <svg>: an axis per parameter (numbers on a linear or,
// spanning more than 50 times, a log scale; other values as ordered labels) and one for the
// objective, one line per trial, blue for the best value to red for the worst, grey without one.
std::string svgParallelCoordinates(const nlohmann::json& trials,
                                   const std::vector<std::string>& parameters,
                                   const std::string& objective, bool minimize, int width = 960,
                                   int height = 320);

}  // namespace nnwb
