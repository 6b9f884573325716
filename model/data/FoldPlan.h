// The folds of a walk-forward validation (validation.mode "walkforward",
// model/ValidationSettings.h): from the bars' open times, what the data section needs (BarNeeds)
// and the settings, each fold's training samples, its early-stopping validation and its test
// window, as bar indices of the samples' last bars; or the reason there are none, naming the
// setting. Definitions in docs/settings.md (Validation). Pure function, no Qt; any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "model/ValidationSettings.h"
#include "model/data/DataPipeline.h"

namespace nnwb {

// One fold. A range with first > last is empty. Every range lies within the samples of the
// file (BarNeeds::firstBar .. bars - 1 - reach), and, with P = purge and E = embargo:
//   trainLast + P < validationFirst        (when the early-stopping validation is not empty)
//   t + P + E < testFirst                   for every training and validation sample t
// so, with P >= the label horizon h, no label of the fold's training part looks at a bar of
// its test window (t + h < testFirst), nor a fitted sample's at its validation.
struct Fold {
    size_t trainFirst = 0, trainLast = 0;            // the samples the fold fits
    size_t validationFirst = 1, validationLast = 0;  // its early-stopping validation
    size_t testFirst = 0, testLast = 0;              // its test window
    // The whole training part: fitted samples, purge gap and validation.
    size_t partFirst() const { return trainFirst; }
    size_t partLast() const {
        return validationFirst <= validationLast ? validationLast : trainLast;
    }
    size_t testSamples() const { return testLast - testFirst + 1; }
    bool hasValidation() const { return validationFirst <= validationLast; }
};

struct FoldPlan {
    std::string error;  // "" when usable, else "validation.KEY: problem" or too few bars
    std::vector<Fold> folds;
    size_t purge = 0, embargo = 0;  // in bars, as applied (purge 0 in the settings: reach)
    size_t reach = 0;               // the label horizon: bars after a sample its label reads
    size_t firstSample = 0, lastSample = 0;  // the file's samples (bar indices)
    // Whether the test windows follow each other without a gap (step = test length, or a
    // fold count): their stitched predictions then cover testFirst of the first fold ..
    // testLast of the last, every sample once.
    bool contiguous = true;
    bool ok() const { return error.empty(); }
};

// `time`: the bars' open times (strictly increasing; only read for units days and weeks),
// one per bar of the file. `name` names the file in the too-few-bars message.
FoldPlan planFolds(const ValidationConfig& config, const std::vector<int64_t>& time,
                   const BarNeeds& needs, const std::string& name = "data");

}  // namespace nnwb
