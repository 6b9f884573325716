// A heatmap of one attention Score matrix (one layer, one head, one validation sample) as a
// QCPColorMap: rows are queries, columns keys, both labelled in offsets from the newest element
// (t-3 … t; "bar" when the elements are the window's bars, else "element"), no interpolation,
// a colour scale over the whole matrix or per row, tick labels thinned to the room there is,
// and a hover read-out of the cell. GUI thread only.
#pragma once

#include <vector>

#include "model/layers/Layer.h"
#include "ui/Plot.h"

namespace nnwb {

// How Score matrices are drawn (shared by the heatmap and the all-heads grid).
struct HeatmapStyle {
    // Colour of each cell relative to its row's largest score (a causal mask's first row is
    // always 1 and would otherwise wash out every other row).
    bool rowNormalized = false;
    bool elementsAreBars = true;  // axis titles say "bar", else "element"
};

class AttentionHeatmap : public QCustomPlot {
    Q_OBJECT
public:
    explicit AttentionHeatmap(QWidget* parent = nullptr);

    // Shows head `head` of `scores`; `title` goes above the map.
    void setScores(const AttentionScores& scores, int head, const QString& title);
    void setStyle(const HeatmapStyle& style);
    // Takes the title row out (where pickers beside the map name the layer, head and sample):
    // its height goes to the map.
    void removeTitle();
    const HeatmapStyle& style() const { return style_; }
    void clearScores();
    QCPColorMap* colorMap() const { return map_; }
    QCPColorScale* colorScale() const { return scale_; }
    int units() const { return units_; }
    // Score of (query row, key column), both 0-based positions in the sequence: the score
    // itself, whatever the colour scale.
    double cellValue(int query, int key) const;

    // The gradient shared by every attention view (perceptually ordered, dark = 0).
    static QCPColorGradient gradient();
    // Ticks labelled "t-5", ..., "t" for a sequence of `units` elements, at most `maxLabels`
    // of them (every 1, 2, 5, 10, … elements, always including t).
    static QSharedPointer<QCPAxisTicker> offsetTicker(int units, int maxLabels = 12);
    // How many of those labels fit side by side in `room` px in `font` (the widest label and
    // an em between two), and how many one above the other in `room` px.
    static int labelsAcross(int units, int room, const QFont& font);
    static int labelsDown(int room, const QFont& font);
    // Fills `map` with an n×n matrix (rows normalized if asked) and returns the top of the
    // colour range.
    static double fillMap(QCPColorMap* map, const float* m, int n, bool rowNormalized);
    // "query bar" / "query element" and the key axis' title.
    static QString queryLabel(bool bars);
    static QString keyLabel(bool bars);

protected:
    void mouseMoveEvent(QMouseEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;

private:
    void render();
    // Thins the tick labels to the axis rect as the last layout left it, grown by `grow` (a
    // resize not laid out yet); true when they changed.
    bool updateTickers(QSize grow = QSize(0, 0));

    QCPColorMap* map_;
    QCPColorScale* scale_;
    QCPTextElement* title_;  // null once removed
    HeatmapStyle style_;
    std::vector<float> matrix_;  // the shown head, units_ × units_, as given
    int units_ = 0;
    int tickUnits_ = 0, across_ = 0, down_ = 0;  // what the tickers were made for
};

}  // namespace nnwb
