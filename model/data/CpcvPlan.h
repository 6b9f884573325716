// The splits and paths of a combinatorial purged cross-validation (validation.mode
// "walkforward" with scheme "cpcv"; López de Prado, Advances in Financial Machine Learning,
// ch. 12): the file's samples cut into N groups, one split for every choice of k test groups
// (C(N, k) splits), each split's training samples purged and embargoed around its test groups
// and its early-stopping validation carved from them, and the C(N, k)·k/N paths, each taking
// every group's test predictions from one split. Definitions in docs/walkforward-cpcv.md. Pure
// function, no Qt; any thread.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "model/ValidationSettings.h"
#include "model/data/BarRange.h"
#include "model/data/DataPipeline.h"

namespace nnwb {

// One split. Every range lies within the file's samples; the ranges of each list are
// disjoint and ascending. With P = purge and E = embargo, for every run of adjacent test groups
// a..b (first..last sample) and every training or validation sample t:
//   t + P < a   or   t > b + P + E
// and every fitted sample t lies before the early-stopping validation: t + P < validation's
// first sample. The validation is the newest earlyStoppingShare of the training samples.
struct CpcvSplit {
    std::vector<size_t> testGroups;    // the k test groups (0-based), ascending
    std::vector<BarRange> test;        // their samples, one range per test group
    std::vector<BarRange> train;       // the samples the split fits
    std::vector<BarRange> validation;  // its early-stopping validation (empty: none)
    size_t trainSamples() const;
    size_t validationSamples() const;
    size_t testSamples() const;
};

struct CpcvPlan {
    std::string error;  // "" when usable, else "validation.KEY: problem" or too few bars
    size_t groups = 0, testGroups = 0;  // N and k
    std::vector<BarRange> group;        // the N groups, back to back over the file's samples
    std::vector<CpcvSplit> splits;      // C(N, k), the test-group choices in lexicographic order
    // paths[p][g]: the split whose test predictions of group g path p takes. Path p takes, for
    // every group, that group's (p+1)-th test occurrence in split order, so every split's test
    // groups go to paths and every group is tested exactly once per path.
    std::vector<std::vector<size_t>> paths;
    size_t purge = 0, embargo = 0;  // in bars, as applied (purge 0 in the settings: reach)
    size_t reach = 0;               // the label horizon
    size_t firstSample = 0, lastSample = 0;
    bool ok() const { return error.empty(); }
    // Where group g's samples start in split s's test outputs (its test ranges in order).
    size_t testOffset(size_t s, size_t g) const;
};

// C(n, k); saturates at SIZE_MAX.
size_t binomial(size_t n, size_t k);

// The plan for a file of `bars` bars; `name` names it in the too-few-bars message.
CpcvPlan planCpcv(const ValidationConfig& config, size_t bars, const BarNeeds& needs,
                  const std::string& name = "data");

}  // namespace nnwb
