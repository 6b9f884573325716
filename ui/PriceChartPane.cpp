#include "ui/PriceChartPane.h"

#include <algorithm>
#include <array>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSplitter>
#include <QVBoxLayout>

#include "app/core/TradingPresenter.h"
#include "ui/FoldBands.h"
#include "ui/Plot.h"
#include "ui/PriceChart.h"

namespace nnwb {

PriceChartPane::PriceChartPane(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    auto* row = new QHBoxLayout;
    row->addWidget(new QLabel(tr("Signals of:"), this));
    picker_ = new QComboBox(this);
    picker_->setObjectName(QStringLiteral("signalEpochPicker"));
    picker_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    row->addWidget(picker_);
    row->addStretch(1);
    layout->addLayout(row);
    split_ = new QSplitter(Qt::Vertical, this);
    split_->setObjectName(QStringLiteral("priceTradingSplitter"));
    split_->setChildrenCollapsible(false);
    chart_ = new PriceChart(split_);
    folds_ = std::make_unique<FoldBands>(chart_->plot());
    split_->addWidget(chart_);
    layout->addWidget(split_, 1);
    rebuildPicker();
    connect(picker_, qOverload<int>(&QComboBox::currentIndexChanged), this,
            [this] { showPicked(); });
    connect(chart_, &PriceChart::barClicked, this, [this](long long bar) {
        if (!haveRun_ || run_.validationFirstBar > run_.validationLastBar) return;
        if (bar < static_cast<long long>(run_.validationFirstBar) ||
            bar > static_cast<long long>(run_.validationLastBar))
            return;
        Q_EMIT validationSampleClicked(static_cast<int>(bar - run_.validationFirstBar));
    });
}

PriceChartPane::~PriceChartPane() = default;

void PriceChartPane::setFileBars(std::shared_ptr<const BarSeries> bars) {
    // The run's own file (read again by the Data pane, maybe after a quick run ended): keep its
    // split and signals, or the walk-forward's folds and stitched signals.
    const std::shared_ptr<const BarSeries> shown = haveRun_                   ? run_.bars
                                                   : !folds_->drawn().empty() ? chart_->bars()
                                                                              : nullptr;
    if (shown && bars && shown->source == bars->source && shown->size() == bars->size()) return;
    haveRun_ = false;
    epochs_.clear();
    ensemble_.reset();
    rebuildPicker();
    folds_->clear();
    chart_->setBars(std::move(bars));
    trade(nullptr);
}

void PriceChartPane::runStarted(const RunInfo& info) {
    // A continued run goes on numbering the same run's epochs on the same bars: the earlier
    // epochs' signals stay to pick (its best epoch may be one of them), from its first on.
    const bool continues = info.continued && haveRun_ && !loadedModel_ && info.bars &&
                           run_.bars == info.bars &&
                           run_.validationFirstBar == info.validationFirstBar &&
                           run_.validationLastBar == info.validationLastBar;
    loadedModel_ = false;
    ensemble_.reset();
    if (continues) {
        epochs_.erase(
            std::remove_if(epochs_.begin(), epochs_.end(),
                           [&](const EpochSignals& e) { return e.epoch >= info.firstEpoch; }),
            epochs_.end());
    } else {
        epochs_.clear();
        bestEpoch_ = 0;
    }
    rebuildPicker();
    haveRun_ = info.bars != nullptr;
    run_ = info;
    trade(nullptr);
    folds_->clear();
    if (!haveRun_) return;
    if (chart_->bars() != info.bars) chart_->setBars(info.bars, info.fractalRule);
    chart_->clearSignals();
    chart_->setSplit(info.trainFirstBar, info.trainLastBar, info.validationFirstBar,
                     info.validationLastBar);
}

void PriceChartPane::showModelSignals(const RunInfo& info, const EpochReport& report) {
    runStarted(info);
    loadedModel_ = true;
    epochFinished(report);
}

void PriceChartPane::clearRun() {
    haveRun_ = false;
    loadedModel_ = false;
    run_ = RunInfo();
    epochs_.clear();
    ensemble_.reset();
    bestEpoch_ = 0;
    rebuildPicker();
    chart_->clearSignals();
    chart_->setSplit(1, 0, 1, 0);  // both parts empty: no boundary, no shade
    folds_->clear();
    trade(nullptr);
}

void PriceChartPane::showWalkForward(const WalkForwardPlan& plan) {
    clearRun();
    if (!plan.bars) return;
    if (chart_->bars() != plan.bars) chart_->setBars(plan.bars, plan.fractalRule);
    folds_->show(plan.plan);
}

void PriceChartPane::showOutOfSample(const SignalSeries& series, const QString& label) {
    if (series.empty() || series.bar.back() - series.bar.front() + 1 != series.size()) return;
    std::vector<float> outputs;
    outputs.reserve(3 * series.size());
    for (const auto& o : series.outputs) outputs.insert(outputs.end(), o.begin(), o.end());
    chart_->setSignals(series.bar.front(), std::move(outputs), label);
}

void PriceChartPane::epochFinished(const EpochReport& report) {
    if (!haveRun_ || !report.validationOutputs) return;
    epochs_.push_back({report.epoch, report.validation.loss, report.validationOutputs});
    bestEpoch_ = report.bestEpoch;
    rebuildPicker();
    showPicked();
}

void PriceChartPane::showKeptEnsemble(const EnsembleKept& kept) {
    if (!haveRun_ || kept.agreement.empty() || kept.outputs.size() != 3 * kept.agreement.size())
        return;
    auto series = std::make_shared<SignalSeries>();
    for (size_t k = 0; k < kept.agreement.size(); ++k) {
        const std::array<float, 3> out{kept.outputs[3 * k], kept.outputs[3 * k + 1],
                                       kept.outputs[3 * k + 2]};
        int signal = 0;  // the class of the largest mean output, the first of equal ones
        for (int c = 1; c < 3; ++c)
            if (out[size_t(c)] > out[size_t(signal)]) signal = c;
        series->add(kept.firstBar + k, out, signal);
    }
    series->agreement = kept.agreement;
    ensemble_ = std::move(series);
    ensembleMembers_ = kept.members;
    rebuildPicker();
    const QSignalBlocker block(picker_);
    picker_->setCurrentIndex(0);
    showEnsemble();
}

void PriceChartPane::showEnsemble() {
    const SignalSeries& s = *ensemble_;
    std::vector<float> outputs;
    outputs.reserve(3 * s.size());
    for (const auto& o : s.outputs) outputs.insert(outputs.end(), o.begin(), o.end());
    chart_->setSignals(
        s.bar.front(), std::move(outputs),
        tr("the ensemble of %1 seeds (kept epochs, validation part)").arg(ensembleMembers_));
    chart_->setAgreement(s.bar.front(), s.agreement);
    if (trading_)
        trading_->setSeries(
            run_.bars, ensemble_,
            tr("the kept ensemble of %1 seeds, validation part").arg(ensembleMembers_));
}

void PriceChartPane::rebuildPicker() {
    // The pick as an item after the kept ensemble's (latest 0, best 1, epoch k 1 + k).
    const int current = picker_->currentIndex();
    const bool keptEnsemble = pickerHasEnsemble_ && current == 0;
    const int keep = current - (pickerHasEnsemble_ ? 1 : 0);
    const QSignalBlocker block(picker_);
    picker_->clear();
    pickerHasEnsemble_ = ensemble_ != nullptr;
    const int offset = pickerHasEnsemble_ ? 1 : 0;
    if (ensemble_) picker_->addItem(tr("the kept ensemble of %1 seeds").arg(ensembleMembers_));
    picker_->addItem(tr("the latest epoch"));
    picker_->addItem(tr("the best epoch"));
    for (const EpochSignals& e : epochs_)
        picker_->addItem(
            tr("epoch %1 (validation loss %2)").arg(e.epoch).arg(e.validationLoss, 0, 'f', 5));
    // Following "latest" or "best" stays; a chosen epoch stays chosen. Without a pick, the
    // best epoch: the one whose trading figures the run stores (docs/trading.md), so that the
    // Trading tab, the Runs tab and the report show one net for one run.
    int index = offset + 1;
    if (keptEnsemble && ensemble_)
        index = 0;
    else if (keep >= 0 && keep + offset < picker_->count())
        index = keep + offset;
    picker_->setCurrentIndex(index);
}

void PriceChartPane::showPicked() {
    // A walk-forward's stitched signals have no epochs to pick from: the picker leaves them.
    if (!haveRun_ && !folds_->drawn().empty()) return;
    if (!haveRun_ || epochs_.empty()) {
        chart_->clearSignals();
        trade(nullptr);
        return;
    }
    if (ensemble_ && picker_->currentIndex() == 0) return showEnsemble();
    // After the kept ensemble's item: the latest epoch, the best epoch, each epoch.
    const int i = picker_->currentIndex() - (ensemble_ ? 1 : 0);
    const EpochSignals* e = &epochs_.back();
    if (i == 1) {
        // The run's best epoch on its monitored metric; without one, the lowest validation loss.
        const EpochSignals* best = nullptr;
        for (const EpochSignals& x : epochs_)
            if (x.epoch == bestEpoch_) best = &x;
        if (!best) {
            best = &epochs_.front();
            for (const EpochSignals& x : epochs_)
                if (x.validationLoss < best->validationLoss) best = &x;
        }
        e = best;
    } else if (i >= 2 && static_cast<size_t>(i - 2) < epochs_.size()) {
        e = &epochs_[static_cast<size_t>(i - 2)];
    }
    QString label = tr("epoch %1 (validation part)").arg(e->epoch);
    if (loadedModel_)
        label = e->epoch > 0 ? tr("the opened model, epoch %1 (validation part)").arg(e->epoch)
                             : tr("the loaded weights (validation part)");
    else if (bestEpoch_ > 0 && e->epoch == bestEpoch_)
        label = tr("epoch %1 (the best; validation part)").arg(e->epoch);
    chart_->setSignals(run_.validationFirstBar, *e->outputs, label);
    trade(e);
}

void PriceChartPane::setTrading(TradingPresenter* presenter) {
    trading_ = presenter;
}

void PriceChartPane::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    // A short pane (a 720 px screen) drops the range overview (wheel and drag still zoom and
    // pan) so that the candles keep the room.
    chart_->setOverviewShown(height() >= 480);
}

void PriceChartPane::showTrade(size_t entryBar, size_t exitBar) {
    chart_->showTrade(entryBar, exitBar);
}

void PriceChartPane::trade(const EpochSignals* shown) {
    if (!trading_) return;
    if (!shown || !run_.bars) {
        trading_->clear();
        return;
    }
    // Says whether these are the best epoch's signals, whose trading the run stores (the Runs
    // tab's and the report's figures), or another epoch's.
    QString what = tr("epoch %1, validation part").arg(shown->epoch);
    if (!loadedModel_ && bestEpoch_ > 0)
        what = shown->epoch == bestEpoch_
                   ? tr("epoch %1 (the run's best epoch), validation part").arg(shown->epoch)
                   : tr("epoch %1 (not the run's best epoch, %2, whose figures the run stores), "
                        "validation part")
                         .arg(shown->epoch)
                         .arg(bestEpoch_);
    trading_->setSignals(run_.bars, run_.validationFirstBar, shown->outputs, what);
}

}  // namespace nnwb
