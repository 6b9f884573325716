// A heatmap of one attention Score matrix (one layer, one head, one validation sample) as a
// QCPColorMap: rows are queries, columns keys, both labelled in bar offsets from the newest bar
// (t-3 … t), no interpolation, a colour scale, and a hover read-out of the cell. GUI thread
// only.
#pragma once

#include "model/layers/Layer.h"
#include "ui/Plot.h"

namespace nnwb {

class AttentionHeatmap : public QCustomPlot {
    Q_OBJECT
public:
    explicit AttentionHeatmap(QWidget* parent = nullptr);

    // Shows head `head` of `scores`; `title` goes above the map.
    void setScores(const AttentionScores& scores, int head, const QString& title);
    void clearScores();
    QCPColorMap* colorMap() const { return map_; }
    int units() const { return units_; }
    // Score of (query row, key column) as shown, both 0-based positions in the sequence.
    double cellValue(int query, int key) const;

    // The gradient shared by every attention view (perceptually ordered, dark = 0).
    static QCPColorGradient gradient();
    // Ticks every step bars labelled "t-5", ..., "t" for a sequence of `units` elements.
    static QSharedPointer<QCPAxisTicker> offsetTicker(int units);

protected:
    void mouseMoveEvent(QMouseEvent* e) override;

private:
    QCPColorMap* map_;
    QCPColorScale* scale_;
    QCPTextElement* title_;
    int units_ = 0;
};

}  // namespace nnwb
