#include "ui/ScreenshotRun.h"

#include <cstdio>

#include <QAction>
#include <QPixmap>
#include <QTimer>

#include "app/core/ComparisonController.h"
#include "app/core/TrainingController.h"
#include "ui/ComparisonView.h"
#include "ui/MainWindow.h"

namespace nnwb {

ScreenshotRun::ScreenshotRun(MainWindow* window, int epochs, QString output, QObject* parent)
    : QObject(parent), window_(window), epochs_(epochs), output_(std::move(output)) {}

void ScreenshotRun::start() {
    if (comparison_) window_->showComparison();
    if (epochs_ <= 0) {
        QTimer::singleShot(300, this, [this] { capture(true); });
        return;
    }
    if (comparison_) return startComparison();
    connect(window_->controller(), &TrainingController::runFinished, this,
            [this](RunEnd end, const QString& message) {
                if (end == RunEnd::Failed)
                    std::fprintf(stderr, "nnwb: training failed: %s\n", qPrintable(message));
                // let the queued attention snapshot and the coalesced replots arrive first
                QTimer::singleShot(400, this, [this, end] { capture(end != RunEnd::Failed); });
            });
    if (!window_->startTraining(epochs_)) {
        std::fprintf(stderr, "nnwb: cannot train: %s\n",
                     qPrintable(window_->trainAction()->toolTip()));
        QTimer::singleShot(300, this, [this] { capture(false); });
    }
}

void ScreenshotRun::startComparison() {
    ComparisonController* cmp = window_->comparison();
    connect(cmp, &ComparisonController::runFinished, this,
            [cmp](int run, RunEnd end, const QString& message) {
                if (end == RunEnd::Failed)
                    std::fprintf(stderr, "nnwb: run %s failed: %s\n",
                                 cmp->record(run).label.c_str(), qPrintable(message));
            });
    connect(cmp, &ComparisonController::allFinished, this, [this, cmp] {
        bool ok = true;
        for (const RunRecord& r : cmp->records()) ok = ok && r.status == RunStatus::Completed;
        QTimer::singleShot(400, this, [this, ok] { capture(ok); });
    });
    if (!window_->comparisonView()->trainAll(epochs_)) {
        std::fprintf(stderr, "nnwb: cannot train the comparison set (no runs?)\n");
        QTimer::singleShot(300, this, [this] { capture(false); });
    }
}

void ScreenshotRun::capture(bool trainingOk) {
    const QPixmap shot = window_->grab();
    bool saved = !output_.isEmpty() && shot.save(output_, "PNG");
    if (!saved)
        std::fprintf(stderr, "nnwb: cannot write %s\n", qPrintable(output_));
    else
        std::printf("nnwb: wrote %s (%dx%d)\n", qPrintable(output_), shot.width(), shot.height());
    Q_EMIT finished(saved && trainingOk ? 0 : 1);
}

}  // namespace nnwb
