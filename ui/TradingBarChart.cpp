#include "ui/TradingBarChart.h"

#include <QVBoxLayout>

#include "ui/Plot.h"

namespace nnwb {

TradingBarChart::TradingBarChart(const QString& title, const QString& valueLabel, QWidget* parent)
    : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    plot_ = new QCustomPlot(this);
    plot_->setMinimumHeight(170);
    layout->addWidget(plot_);
    plot_->plotLayout()->insertRow(0);
    auto* head = new QCPTextElement(plot_, title, QFont(font().family(), 9, QFont::Bold));
    plot_->plotLayout()->addElement(0, 0, head);
    plot_->yAxis->setLabel(valueLabel);
    positive_ = new QCPBars(plot_->xAxis, plot_->yAxis);
    negative_ = new QCPBars(plot_->xAxis, plot_->yAxis);
    positive_->setPen(Qt::NoPen);
    negative_->setPen(Qt::NoPen);
    positive_->setBrush(QColor(44, 160, 44));
    negative_->setBrush(QColor(214, 39, 40));
    positive_->setWidth(0.8);
    negative_->setWidth(0.8);
}

void TradingBarChart::setBars(const std::vector<double>& values, const QStringList& labels,
                              int labelEvery, const std::vector<double>& colourBy) {
    QVector<double> px, py, nx, ny;
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (size_t i = 0; i < values.size(); ++i) {
        const double sign = i < colourBy.size() ? colourBy[i] : values[i];
        (sign < 0 ? nx : px).push_back(double(i));
        (sign < 0 ? ny : py).push_back(values[i]);
        if (int(i) < labels.size() && int(i) % std::max(1, labelEvery) == 0)
            ticker->addTick(double(i), labels[int(i)]);
    }
    positive_->setData(px, py, true);
    negative_->setData(nx, ny, true);
    plot_->xAxis->setTicker(ticker);
    plot_->xAxis->setRange(-0.6, std::max<double>(1, values.size()) - 0.4);
    double lo = 0, hi = 0;
    for (double v : values) lo = std::min(lo, v), hi = std::max(hi, v);
    if (hi == lo) hi = lo + 1;
    plot_->yAxis->setRange(lo - (hi - lo) * 0.05, hi + (hi - lo) * 0.08);
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

double TradingBarChart::value(int i) const {
    for (QCPBars* b : {positive_, negative_})
        for (auto it = b->data()->constBegin(); it != b->data()->constEnd(); ++it)
            if (int(it->key) == i) return it->value;
    return 0;
}

int TradingBarChart::bars() const {
    return positive_->dataCount() + negative_->dataCount();
}

}  // namespace nnwb
