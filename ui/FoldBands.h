// The folds of a walk-forward validation drawn on the price chart: one thin band per fold along
// the bottom of the candles, fold 1 on top, each split into its spans on the bar axis: the
// samples it trains on, its early-stopping validation, the purge (and embargo) gap and its test
// window, in the colours of the legend text. Items of the chart's QCustomPlot, removed by
// clear(). GUI thread only.
#pragma once

#include <cstddef>
#include <vector>

#include <QString>

#include "model/data/FoldPlan.h"

class QCustomPlot;
class QCPAbstractItem;

namespace nnwb {

class FoldBands {
public:
    enum class Span { Train, Validation, Gap, Test };
    // One drawn span, read back from the chart's items: bars first .. last of fold `fold`.
    struct Drawn {
        size_t fold = 0;
        Span span = Span::Train;
        double first = 0, last = 0;
    };

    explicit FoldBands(QCustomPlot* plot) : plot_(plot) {}
    // Draws `plan`'s folds (replacing those drawn before).
    void show(const FoldPlan& plan);
    void clear();
    // What is drawn now, in fold order (for tests and tooltips).
    std::vector<Drawn> drawn() const;
    // "training, validation, purge/embargo, test" in the spans' colours (rich text).
    static QString legendHtml();

private:
    void addSpan(size_t fold, size_t folds, Span span, size_t first, size_t last);

    QCustomPlot* plot_;
    std::vector<QCPAbstractItem*> items_;
    std::vector<Drawn> drawn_;
};

}  // namespace nnwb
