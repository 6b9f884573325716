// All heads of one attention layer at once: a grid of small Score-matrix heatmaps (one
// QCustomPlot, one axis rect per head) sharing one colour scale (whole matrices or per row),
// tick labels thinned to each small map's room. GUI thread only.
#pragma once

#include <QVector>

#include "model/layers/Layer.h"
#include "ui/AttentionHeatmap.h"
#include "ui/Plot.h"

namespace nnwb {

class AttentionGrid : public QCustomPlot {
    Q_OBJECT
public:
    explicit AttentionGrid(QWidget* parent = nullptr);

    void setScores(const AttentionScores& scores, const HeatmapStyle& style = HeatmapStyle());
    void clearScores();
    int heads() const { return maps_.size(); }
    QCPColorMap* map(int head) const { return maps_.value(head); }

protected:
    void resizeEvent(QResizeEvent* e) override;

private:
    // As AttentionHeatmap::updateTickers, for every small map.
    bool updateTickers(QSize grow = QSize(0, 0));
    QVector<QCPColorMap*> maps_;
    int units_ = 0, cols_ = 1, rows_ = 1;
    int tickUnits_ = 0, across_ = 0, down_ = 0;  // what the tickers were made for
};

}  // namespace nnwb
