// The overfitting diagnostics of a sweep (issue 45, docs/overfitting.md): the per-bar returns
// stored with its trials' runs (app/runs/RunReturns.h) as one bars x trials matrix on the bars
// every such trial has, what `sweep export --returns` writes, and the probability of backtest
// overfitting with its companions computed from that matrix by CSCV (model/overfitting/
// Cscv.h), as `sweep show` and its JSON report them. Pure functions; any thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/runs/RunReturns.h"
#include "app/sweep/SweepStore.h"

namespace nnwb {

struct SweepReturnsMatrix {
    std::vector<int> trials;                   // the columns: trial numbers, ascending
    std::vector<int64_t> time;                 // the rows: bar times every column has
    std::vector<std::vector<double>> returns;  // returns[column][row]
};

// The complete and pruned trials whose runs have stored returns (`returnsOfRun`: run id ->
// its returns), restricted to the bar times they all have. No columns when none has returns.
SweepReturnsMatrix sweepReturnsMatrix(const std::vector<TrialRow>& trials,
                                      const std::map<int64_t, ReturnSeries>& returnsOfRun);
// The matrix as CSV: a header "time,<trial>,<trial>,...", then one row per bar, its time as
// "YYYY-MM-DD HH:MM" and each trial's return (shortest form that reads back exactly).
std::string sweepReturnsCsv(const SweepReturnsMatrix& m);

// {method, blocks, trials, trialNumbers, bars, firstBar, lastBar, barsPerBlock, splits, pbo,
//  degradation {slope, intercept, rSquared}, probabilityOfLoss, dominance {firstOrder,
//  firstOrderGap, secondOrder, secondOrderMin, area}, perSplit {winner, inSample, outOfSample,
//  logit}, meaning} (undefined figures null); {"refused": why, trials, bars, blocks} when CSCV
// refuses the matrix (too few trials or bars); null when no trial has returns.
nlohmann::json sweepOverfitting(const SweepReturnsMatrix& m, int blocks);
// The lines `sweep show` prints for it ("" for null).
std::string sweepOverfittingText(const nlohmann::json& j);

}  // namespace nnwb
