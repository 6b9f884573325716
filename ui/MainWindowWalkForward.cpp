// MainWindow and walk-forward runs: the worker's walk-forward signals go to the
// WalkForwardPresenter (fold table, stitched figures, trading of the stitched series) and the
// price chart (folds, stitched signals); the Metrics tab shows the fold in training.
#include <QStatusBar>

#include "app/core/WalkForwardPresenter.h"
#include "ui/AttentionView.h"
#include "ui/MainWindow.h"
#include "ui/MetricCharts.h"
#include "ui/PriceChartPane.h"

namespace nnwb {

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
        statusBar()->showMessage((walkForward_->plan().isCpcv() ? tr("CPCV: split %1/%2 training")
                                                                : tr("Walk-forward: fold %1/%2 "
                                                                     "training"))
                                     .arg(r.index + 1)
                                     .arg(r.folds),
                                 8000);
    });
    connect(controller_, &C::foldEnded, walkForward_, &WalkForwardPresenter::foldEnded);
    connect(controller_, &C::walkForwardFinished, this, [this](const WalkForwardOutcome& o) {
        walkForward_->finished(o);
        int completed = 0;
        for (const FoldRecord& r : o.folds) completed += r.end == RunEnd::Completed;
        if (o.outOfSample)
            priceChart_->showOutOfSample(
                *o.outOfSample, tr("out of sample, stitched from %1 folds").arg(completed));
    });
}

}  // namespace nnwb
