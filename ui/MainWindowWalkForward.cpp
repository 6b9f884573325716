// MainWindow and walk-forward runs: the worker's walk-forward signals go to the
// WalkForwardPresenter (fold table, stitched figures, trading of the stitched series) and the
// price chart (folds, stitched signals); the Metrics tab shows the fold in training (an
// ensemble's folds, training.ensemble > 1: the status bar says so, the charts show the
// ensemble's epochs with its members' as thin lines, as the Training pane's ensemble; its
// stitched agreement shows under the candles, its comparison with its members in the
// Walk-Forward tab).
#include <QStatusBar>

#include "app/core/ExperimentDocument.h"
#include "app/core/WalkForwardPresenter.h"
#include "ui/AttentionView.h"
#include "ui/MainWindow.h"
#include "ui/MetricCharts.h"
#include "ui/PriceChart.h"
#include "ui/PriceChartPane.h"

namespace nnwb {

namespace {

// An ensemble's stitched agreement under the candles, when its bars follow one another (test
// windows with gaps between them draw none).
void showAgreement(PriceChart* chart, const SignalSeries& s) {
    if (s.empty() || s.agreement.size() != s.size()) return;
    for (size_t k = 1; k < s.size(); ++k)
        if (s.bar[k] != s.bar.front() + k) return;
    chart->setAgreement(s.bar.front(), s.agreement);
}

}  // namespace

void MainWindow::connectWalkForward() {
    using C = TrainingController;
    connect(controller_, &C::walkForwardPlanned, this, [this](const WalkForwardPlan& plan) {
        walkForward_->planned(plan);
        WalkForwardPlan bands = plan;
        if (plan.isCpcv()) bands.plan.folds.clear();  // splits overlap: no bands, the bars
        priceChart_->showWalkForward(bands);
        attention_->clear(
            tr("A walk-forward keeps no model (each fold trains its own), so there "
               "are no Score matrices to show."));
    });
    connect(controller_, &C::foldStarted, this, [this](const FoldRecord& r) {
        walkForward_->foldStarted(r);
        charts_->clear();  // each fold's epochs count from 1
        const int ensemble = doc_->experiment().training.ensemble;
        statusBar()->showMessage(
            (walkForward_->plan().isCpcv() ? tr("CPCV: split %1/%2 training")
                                           : tr("Walk-forward: fold %1/%2 "
                                                "training"))
                    .arg(r.index + 1)
                    .arg(r.folds) +
                (ensemble > 1 ? tr(", an ensemble of %1 seeds").arg(ensemble) : QString()),
            8000);
    });
    connect(controller_, &C::foldEnded, walkForward_, &WalkForwardPresenter::foldEnded);
    connect(controller_, &C::walkForwardFinished, this, [this](const WalkForwardOutcome& o) {
        walkForward_->finished(o);
        int completed = 0;
        for (const FoldRecord& r : o.folds) completed += r.end == RunEnd::Completed;
        if (o.outOfSample) {
            priceChart_->showOutOfSample(
                *o.outOfSample, completed == 1
                                    ? tr("out of sample, from 1 fold")
                                    : tr("out of sample, stitched from %1 folds").arg(completed));
            showAgreement(priceChart_->chart(), *o.outOfSample);
        }
    });
}

}  // namespace nnwb
