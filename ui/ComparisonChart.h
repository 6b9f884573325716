// One metric of a comparison, every run overlaid: per run a training series (solid) and a
// validation series (dashed) in the run's colour, the run's name in the legend; runs and the
// training / validation parts can be hidden. Clicking a legend entry toggles that run.
// GUI thread only.
#pragma once

#include <vector>

#include "ui/SeriesChart.h"

namespace nnwb {

class ComparisonChart : public SeriesChart {
    Q_OBJECT
public:
    ComparisonChart(const QString& title, const QString& yLabel, QWidget* parent = nullptr);

    // Drops every series and makes one pair per run.
    void setRuns(const QStringList& names, const std::vector<QColor>& colours);
    void addPoint(int run, double epoch, double train, double validation, bool hasValidation);
    void clearRun(int run);
    // Marks run `run`'s best epoch with a star on its validation curve (its training curve
    // without validation); 0 removes the mark.
    void setBestEpoch(int run, int epoch);
    QCPGraph* bestGraph(int run) const { return series_.at(size_t(run)).best; }
    void setRunVisible(int run, bool visible);
    // Draws run `run` as a member of an ensemble (docs/ensembles.md): thin, translucent lines
    // without a legend entry.
    void setRunThin(int run);
    bool runThin(int run) const { return series_.at(size_t(run)).thin; }
    void setPartsVisible(bool training, bool validation);
    int runCount() const { return static_cast<int>(series_.size()); }
    QCPGraph* trainGraph(int run) const { return series_.at(size_t(run)).train; }
    QCPGraph* validationGraph(int run) const { return series_.at(size_t(run)).validation; }

Q_SIGNALS:
    void runToggled(int run, bool visible);

private:
    void applyVisibility(int run);
    void placeBest(int run);

    struct Series {
        QCPGraph* train;
        QCPGraph* validation;
        QCPGraph* best;
        int bestEpoch = 0;
        bool visible = true;
        bool thin = false;
    };
    std::vector<Series> series_;
    bool showTraining_ = true, showValidation_ = true;
};

}  // namespace nnwb
