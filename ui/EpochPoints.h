// One epoch of a run as points on the three comparison charts (loss, missed patterns,
// accuracy), shared by the Comparison and Runs tabs. Accuracy of an epoch part that gave fewer
// than kMinSignalsForAccuracy buy/sell signals (model/FigureText.h) is not shown: a gap in the
// curve (NaN), never 0 % or 100 % of a handful. GUI thread only.
#pragma once

#include "model/Metrics.h"
#include "model/Trainer.h"

namespace nnwb {

class ComparisonChart;

// The accuracy to plot: accuracyPct, or NaN (a gap) below kMinSignalsForAccuracy signals.
double plottedAccuracy(const EpochMetrics& m);

// Adds epoch `e` of run `run` to charts[0] (loss), charts[1] (missed) and charts[2] (accuracy);
// missed and accuracy only where the epoch has task metrics; moves the run's best-epoch star
// to the epoch's bestEpoch.
void addEpochPoints(ComparisonChart* const charts[3], int run, const EpochReport& e,
                    bool hasValidation);

}  // namespace nnwb
