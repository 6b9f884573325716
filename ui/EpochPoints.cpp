#include "ui/EpochPoints.h"

#include <limits>

#include "model/FigureText.h"
#include "ui/ComparisonChart.h"

namespace nnwb {

double plottedAccuracy(const EpochMetrics& m) {
    return accuracyShown(m.signalCount) ? m.accuracyPct : std::numeric_limits<double>::quiet_NaN();
}

void addEpochPoints(ComparisonChart* const charts[3], int run, const EpochReport& e,
                    bool hasValidation) {
    charts[0]->addPoint(run, e.epoch, e.train.loss, e.validation.loss, hasValidation);
    if (e.taskMetrics) {
        charts[1]->addPoint(run, e.epoch, e.train.missedPct, e.validation.missedPct, hasValidation);
        charts[2]->addPoint(run, e.epoch, plottedAccuracy(e.train), plottedAccuracy(e.validation),
                            hasValidation);
    }
    if (e.bestEpoch > 0)
        for (int i = 0; i < 3; ++i) charts[i]->setBestEpoch(run, e.bestEpoch);
}

}  // namespace nnwb
