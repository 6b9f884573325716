// One per-epoch metric chart of a single run: a training and a validation series (see
// SeriesChart for the legend, hover read-out, autoscale and coalesced redraws); for an
// ensemble's run, each member's curves as thin, translucent lines of the same colours without
// a legend entry (docs/ensembles.md). GUI thread only.
#pragma once

#include <vector>

#include "ui/SeriesChart.h"

namespace nnwb {

class MetricChart : public SeriesChart {
    Q_OBJECT
public:
    MetricChart(const QString& title, const QString& yLabel, QWidget* parent = nullptr);

    void addPoint(double epoch, double train, double validation, bool hasValidation);
    // A point of ensemble member `member` (0-based; its thin curves made on first use).
    void addMemberPoint(int member, double epoch, double train, double validation,
                        bool hasValidation);
    // Empties the curves and removes the members' (a new run).
    void clearPoints();
    int pointCount() const;
    QCPGraph* trainGraph() const { return train_; }
    QCPGraph* validationGraph() const { return validation_; }
    int memberCount() const { return int(members_.size()); }
    QCPGraph* memberTrainGraph(int m) const { return members_.at(size_t(m)).train; }
    QCPGraph* memberValidationGraph(int m) const { return members_.at(size_t(m)).validation; }

private:
    struct Member {
        QCPGraph* train;
        QCPGraph* validation;
    };
    QCPGraph* thinGraph(const QCPGraph* like);
    QCPGraph* train_;
    QCPGraph* validation_;
    std::vector<Member> members_;
};

}  // namespace nnwb
