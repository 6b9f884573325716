#include "ui/SweepImportanceChart.h"

#include <algorithm>

namespace nnwb {

SweepImportanceChart::SweepImportanceChart(QWidget* parent) : QCustomPlot(parent) {
    setObjectName(QStringLiteral("sweepImportance"));
    setMinimumHeight(110);
    bars_ = new QCPBars(yAxis, xAxis);  // horizontal: keys on the left axis
    bars_->setBrush(QColor(70, 130, 180));
    bars_->setPen(Qt::NoPen);
    xAxis->setLabel(tr("importance (ω², fANOVA main effect)"));
    xAxis->setRange(0, 1);
    plotLayout()->insertRow(0);
    note_ = new QCPTextElement(this, QString(), QFont(font().family(), 9));
    plotLayout()->addElement(0, 0, note_);
}

void SweepImportanceChart::setSnapshot(const SweepSnapshot& s) {
    names_.clear();
    values_.clear();
    const nlohmann::json& imp = s.report.value("importance", nlohmann::json::array());
    QVector<double> keys, values;
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    // Largest on top: the last key is drawn highest.
    for (int i = int(imp.size()) - 1, k = 1; i >= 0; --i, ++k) {
        const QString name = QString::fromStdString(imp[size_t(i)].value("parameter", ""));
        keys << k;
        values << imp[size_t(i)].value("index", 0.0);
        ticker->addTick(k, name);
    }
    for (const auto& p : imp) {
        names_ << QString::fromStdString(p.value("parameter", ""));
        values_.push_back(p.value("index", 0.0));
    }
    bars_->setData(keys, values);
    clearItems();  // the figures beside the bars: ω² near 0 draws no visible bar
    for (int i = 0; i < keys.size(); ++i) {
        auto* label = new QCPItemText(this);
        label->setClipToAxisRect(false);
        label->position->setAxes(xAxis, yAxis);
        label->position->setCoords(values[i], keys[i]);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        label->setPadding(QMargins(4, 0, 0, 0));
        label->setText(QString::number(values[i], 'f', 2));
    }
    yAxis->setTicker(ticker);
    yAxis->setRange(0.4, std::max(1, int(keys.size())) + 0.6);
    xAxis->setRange(
        0,
        std::max(0.05,
                 values.isEmpty() ? 1.0 : *std::max_element(values.begin(), values.end()) * 1.15));
    note_->setText(imp.empty()
                       ? tr("Importance needs at least 4 complete trials")
                       : tr("Parameter importance of %1").arg(QString::fromStdString(s.objective)));
    replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace nnwb
