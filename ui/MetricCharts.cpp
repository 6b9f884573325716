#include "ui/MetricCharts.h"

#include <limits>

#include <QBuffer>
#include <QFile>
#include <QHBoxLayout>
#include <QMessageBox>
#include <QPainter>

#include "model/AtomicFile.h"
#include "model/MetricsCsv.h"
#include "ui/EpochPoints.h"
#include "ui/FileDialogs.h"
#include "ui/LearningRateChart.h"
#include "ui/MetricChart.h"

namespace nnwb {

MetricCharts::MetricCharts(QWidget* parent) : QWidget(parent) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(4);
    charts_[0] = new MetricChart(tr("Loss"), tr("mean loss per sample"), this);
    charts_[1] = new MetricChart(tr("Missed patterns"), tr("missed fractals (%)"), this);
    charts_[2] = new MetricChart(tr("Accuracy"), tr("signals on a fractal (%)"), this);
    const char* names[3] = {"lossChart", "missedChart", "accuracyChart"};
    for (int i = 0; i < 3; ++i) {
        charts_[i]->setObjectName(QLatin1String(names[i]));
        layout->addWidget(charts_[i], 1);
    }
    rateChart_ = new LearningRateChart(this);
    rateChart_->setObjectName(QStringLiteral("learningRateChart"));
    layout->addWidget(rateChart_, 1);
}

std::vector<SeriesChart*> MetricCharts::all() const {
    return {charts_[0], charts_[1], charts_[2], rateChart_};
}

void MetricCharts::addEpoch(const EpochReport& r, bool hasValidation) {
    reports_.push_back(r);
    hasValidation_.push_back(hasValidation);
    const double e = r.epoch;
    charts_[0]->addPoint(e, r.train.loss, r.validation.loss, hasValidation);
    if (r.taskMetrics) {
        charts_[1]->addPoint(e, r.train.missedPct, r.validation.missedPct, hasValidation);
        // An accuracy of fewer than 20 signals is not shown (FigureText.h): a gap in the curve.
        charts_[2]->addPoint(e, plottedAccuracy(r.train), plottedAccuracy(r.validation),
                             hasValidation);
    }
    if (r.learningRate > 0) rateChart_->addPoint(e, r.learningRate);
    if (r.bestEpoch > 0 && r.bestEpoch != bestEpoch_) {
        bestEpoch_ = r.bestEpoch;
        for (SeriesChart* c : all()) c->setMarker(bestEpoch_, tr("best %1").arg(bestEpoch_));
    }
}

void MetricCharts::addMemberEpoch(const EpochReport& r, bool hasValidation) {
    const double e = r.epoch;
    charts_[0]->addMemberPoint(r.model, e, r.train.loss, r.validation.loss, hasValidation);
    if (!r.taskMetrics) return;
    charts_[1]->addMemberPoint(r.model, e, r.train.missedPct, r.validation.missedPct,
                               hasValidation);
    charts_[2]->addMemberPoint(r.model, e, plottedAccuracy(r.train), plottedAccuracy(r.validation),
                               hasValidation);
}

void MetricCharts::clear() {
    reports_.clear();
    hasValidation_.clear();
    for (MetricChart* c : charts_) c->clearPoints();
    rateChart_->clearPoints();
    bestEpoch_ = 0;
}

bool MetricCharts::exportPng(const QString& path, QString* error) const {
    const int w = 560, h = 380;
    const std::vector<SeriesChart*> charts = all();
    QPixmap picture(w * int(charts.size()), h);
    picture.fill(Qt::white);
    QPainter p(&picture);
    for (size_t i = 0; i < charts.size(); ++i)
        p.drawPixmap(int(i) * w, 0, charts[i]->toPixmap(w, h, 1.0));
    p.end();
    QByteArray png;
    QBuffer buffer(&png);
    if (!buffer.open(QIODevice::WriteOnly) || !picture.save(&buffer, "PNG")) {
        if (error) *error = tr("%1: the picture could not be encoded").arg(path);
        return false;
    }
    return save(path, std::string(png.constData(), size_t(png.size())), error);
}

bool MetricCharts::save(const QString& path, const std::string& bytes, QString* error) {
    // Through writeFileAtomic like every save: atomic for a file (a failed export leaves an
    // older one intact), a symlink's target updated, a device or FIFO written in place
    // (QSaveFile would replace /dev/null with a regular file).
    try {
        writeFileAtomic(path.toStdString(), bytes);
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    return true;
}

bool MetricCharts::exportCsv(const QString& path, QString* error) const {
    std::vector<MetricsCsvRow> rows;
    for (size_t i = 0; i < reports_.size(); ++i)
        rows.push_back({{}, {}, reports_[i], hasValidation_[i]});
    MetricsCsvColumns columns;
    columns.schedule = true;
    const std::string text = metricsCsv(rows, columns);
    return save(path, text, error);
}

void MetricCharts::exportPngDialog() {
    const QString path = saveFileName(this, tr("Export charts as PNG"),
                                      QStringLiteral("charts.png"), tr("PNG images (*.png)"));
    QString error;
    if (!path.isEmpty() && !exportPng(path, &error))
        QMessageBox::warning(this, tr("Export failed"), error);
}

void MetricCharts::exportCsvDialog() {
    const QString path = saveFileName(this, tr("Export metrics as CSV"),
                                      QStringLiteral("metrics.csv"), tr("CSV files (*.csv)"));
    QString error;
    if (!path.isEmpty() && !exportCsv(path, &error))
        QMessageBox::warning(this, tr("Export failed"), error);
}

}  // namespace nnwb
