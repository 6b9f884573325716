#include "ui/SweepOverfittingChart.h"

#include <algorithm>
#include <cmath>

#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

namespace nnwb {

namespace {

constexpr int kHalfBins = 10;  // bins on each side of 0

QString figure(const nlohmann::json& v, int decimals) {
    return v.is_number() ? QString::number(v.get<double>(), 'f', decimals) : QStringLiteral("n/a");
}

QString figuresText(const nlohmann::json& o) {
    if (o.is_null())
        return QObject::tr(
            "No trial has stored per-bar returns: PBO needs trading figures "
            "(docs/overfitting.md).");
    if (o.contains("refused"))
        return QObject::tr("PBO not computed: %1")
            .arg(QString::fromStdString(o["refused"].get<std::string>()));
    const nlohmann::json& g = o["degradation"];
    const nlohmann::json& d = o["dominance"];
    return QObject::tr(
               "PBO %1 over %2 splits (%3 trials, %4 bars, S = %5) · degradation: "
               "OOS = %6 + %7 × IS (R² %8) · probability of loss %9 · dominance: first "
               "order %10, second order %11")
        .arg(figure(o["pbo"], 3))
        .arg(o["splits"].get<int>())
        .arg(o["trials"].get<int>())
        .arg(o["bars"].get<int>())
        .arg(o["blocks"].get<int>())
        .arg(figure(g["intercept"], 4), figure(g["slope"], 3), figure(g["rSquared"], 3),
             figure(o["probabilityOfLoss"], 3),
             d["firstOrder"].get<bool>() ? QObject::tr("holds") : QObject::tr("fails"),
             d["secondOrder"].get<bool>() ? QObject::tr("holds") : QObject::tr("fails"));
}

}  // namespace

SweepOverfittingChart::SweepOverfittingChart(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("sweepOverfitting"));
    figures_ = new QLabel(this);
    figures_->setWordWrap(true);
    histogram_ = new QCustomPlot(this);
    histogram_->setMinimumHeight(110);
    bars_ = new QCPBars(histogram_->xAxis, histogram_->yAxis);
    bars_->setPen(Qt::NoPen);
    bars_->setBrush(QColor(70, 130, 180));
    histogram_->xAxis->setLabel(tr("logit λ of the winner's out-of-sample rank (≤ 0: overfit)"));
    histogram_->yAxis->setLabel(tr("splits"));
    scatter_ = new QCustomPlot(this);
    scatter_->setMinimumHeight(110);
    winners_ = scatter_->addGraph();
    winners_->setLineStyle(QCPGraph::lsNone);
    winners_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(70, 130, 180), 4));
    fit_ = scatter_->addGraph();
    fit_->setPen(QPen(QColor(200, 40, 40), 2));
    scatter_->xAxis->setLabel(tr("winner's in-sample Sharpe per bar"));
    scatter_->yAxis->setLabel(tr("its out-of-sample Sharpe"));
    auto* plots = new QHBoxLayout;
    plots->addWidget(histogram_);
    plots->addWidget(scatter_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(figures_);
    layout->addLayout(plots, 1);
}

int SweepOverfittingChart::scatterPoints() const {
    return winners_->data()->size();
}

void SweepOverfittingChart::setSnapshot(const SweepSnapshot& s) {
    const nlohmann::json o = s.report.is_object() && s.report.contains("overfitting")
                                 ? s.report["overfitting"]
                                 : nlohmann::json();
    figures_->setText(figuresText(o));
    edges_.clear();
    counts_.clear();
    winners_->data()->clear();
    fit_->data()->clear();
    const bool have = o.is_object() && o.contains("perSplit");
    const std::vector<double> logits =
        have ? o["perSplit"]["logit"].get<std::vector<double>>() : std::vector<double>();
    double reach = 0;
    for (double l : logits) reach = std::max(reach, std::abs(l));
    const double width = reach > 0 ? reach / kHalfBins : 1.0;
    QVector<double> keys, values;
    for (int k = -kHalfBins; k < kHalfBins; ++k) {
        edges_.push_back(k * width);
        counts_.push_back(0);
    }
    for (double l : logits) {
        // (edge, edge + width]: 0 falls in the bin left of 0, as PBO counts it.
        const int k = std::clamp(int(std::ceil(l / width)) - 1, -kHalfBins, kHalfBins - 1);
        counts_[size_t(k + kHalfBins)] += 1;
    }
    for (size_t i = 0; i < edges_.size(); ++i) {
        keys << edges_[i] + width / 2;
        values << counts_[i];
    }
    bars_->setWidth(width);
    bars_->setData(keys, values);
    histogram_->rescaleAxes();
    histogram_->xAxis->setRange(-reach - width, reach + width);
    histogram_->replot(QCustomPlot::rpQueuedReplot);
    if (have) {
        const auto is = o["perSplit"]["inSample"].get<std::vector<double>>();
        const auto oos = o["perSplit"]["outOfSample"].get<std::vector<double>>();
        for (size_t i = 0; i < is.size() && i < oos.size(); ++i) winners_->addData(is[i], oos[i]);
        const nlohmann::json& g = o["degradation"];
        if (!is.empty() && g["slope"].is_number() && g["intercept"].is_number()) {
            const auto [lo, hi] = std::minmax_element(is.begin(), is.end());
            for (double x : {*lo, *hi})
                fit_->addData(x, g["intercept"].get<double>() + g["slope"].get<double>() * x);
        }
    }
    scatter_->rescaleAxes();
    scatter_->xAxis->scaleRange(1.1);
    scatter_->yAxis->scaleRange(1.1);
    scatter_->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace nnwb
