// All heads of one attention layer at once: a grid of small Score-matrix heatmaps (one
// QCustomPlot, one axis rect per head) sharing one colour scale. GUI thread only.
#pragma once

#include <QVector>

#include "model/layers/Layer.h"
#include "ui/Plot.h"

namespace nnwb {

class AttentionGrid : public QCustomPlot {
    Q_OBJECT
public:
    explicit AttentionGrid(QWidget* parent = nullptr);

    void setScores(const AttentionScores& scores);
    void clearScores();
    int heads() const { return maps_.size(); }
    QCPColorMap* map(int head) const { return maps_.value(head); }

private:
    QVector<QCPColorMap*> maps_;
};

}  // namespace nnwb
