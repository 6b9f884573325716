#include "ui/FoldBands.h"

#include <algorithm>

#include "ui/Plot.h"

namespace nnwb {

namespace {

QColor colourOf(FoldBands::Span s) {
    switch (s) {
        case FoldBands::Span::Train:
            return QColor(66, 133, 244, 170);
        case FoldBands::Span::Validation:
            return QColor(52, 168, 83, 170);
        case FoldBands::Span::Gap:
            return QColor(120, 120, 120, 170);
        case FoldBands::Span::Test:
            return QColor(244, 140, 0, 200);
    }
    return Qt::black;
}

}  // namespace

QString FoldBands::legendHtml() {
    auto chip = [](Span s, const QString& text) {
        return QStringLiteral("<span style=\"color:%1\">&#9632;</span> %2")
            .arg(colourOf(s).name(), text);
    };
    return chip(Span::Train, QObject::tr("training")) + QStringLiteral(" &nbsp;") +
           chip(Span::Validation, QObject::tr("early-stopping validation")) +
           QStringLiteral(" &nbsp;") + chip(Span::Gap, QObject::tr("purge/embargo")) +
           QStringLiteral(" &nbsp;") + chip(Span::Test, QObject::tr("test"));
}

void FoldBands::addSpan(size_t fold, size_t folds, Span span, size_t first, size_t last) {
    if (first > last) return;
    // The bands take at most the bottom quarter of the candles' area.
    const double h = std::min(0.035, 0.25 / static_cast<double>(folds));
    const double top = 1.0 - static_cast<double>(folds - fold) * h;
    auto* rect = new QCPItemRect(plot_);
    rect->setPen(Qt::NoPen);
    rect->setBrush(colourOf(span));
    rect->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
    rect->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
    rect->topLeft->setCoords(static_cast<double>(first) - 0.5, top + 0.1 * h);
    rect->bottomRight->setCoords(static_cast<double>(last) + 0.5, top + 0.9 * h);
    rect->setClipToAxisRect(true);
    rect->setSelectable(false);
    items_.push_back(rect);
    drawn_.push_back({fold, span, static_cast<double>(first), static_cast<double>(last)});
}

void FoldBands::show(const FoldPlan& plan) {
    clear();
    const size_t n = plan.folds.size();
    for (size_t k = 0; k < n; ++k) {
        const Fold& f = plan.folds[k];
        addSpan(k, n, Span::Train, f.trainFirst, f.trainLast);
        if (f.hasValidation()) addSpan(k, n, Span::Validation, f.validationFirst, f.validationLast);
        if (f.testFirst > f.partLast() + 1)
            addSpan(k, n, Span::Gap, f.partLast() + 1, f.testFirst - 1);
        addSpan(k, n, Span::Test, f.testFirst, f.testLast);
    }
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void FoldBands::clear() {
    for (QCPAbstractItem* item : items_) plot_->removeItem(item);
    const bool had = !items_.empty();
    items_.clear();
    drawn_.clear();
    if (had) plot_->replot(QCustomPlot::rpQueuedReplot);
}

std::vector<FoldBands::Drawn> FoldBands::drawn() const {
    // Read back from the items, so a test sees what the chart holds.
    std::vector<Drawn> out;
    for (size_t i = 0; i < items_.size(); ++i) {
        const auto* rect = static_cast<const QCPItemRect*>(items_[i]);
        Drawn d = drawn_[i];
        d.first = rect->topLeft->coords().x() + 0.5;
        d.last = rect->bottomRight->coords().x() - 0.5;
        out.push_back(d);
    }
    return out;
}

}  // namespace nnwb
