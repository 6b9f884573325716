// MainWindow and the run store: where runs are recorded, the Runs tab's Open Experiment and
// Open Model, the Sweeps tab's trials opened as runs, and the curves of an experiment file's
// last run. The store is queried by the
// window's RunHistory (its own thread); the answers come back here.
#include <QFileInfo>
#include <QStatusBar>
#include <QTabWidget>

#include "app/core/ComparisonController.h"
#include "app/core/ExperimentDocument.h"
#include "app/core/KeptEnsembleJob.h"
#include "app/core/RunHistory.h"
#include "app/core/RunPresenter.h"
#include "app/core/SweepPresenter.h"
#include "ui/ConfusionTable.h"
#include "ui/MainWindow.h"
#include "ui/MetricCharts.h"
#include "ui/ModelActions.h"
#include "ui/RunsView.h"
#include "ui/SweepsView.h"

namespace nnwb {

void MainWindow::setRunsDatabase(const QString& dbPath, bool enabled) {
    presenter_->setRecording(dbPath, enabled);
    comparison_->setRecording(presenter_->recording());
    runsView_->setDatabase(presenter_->shownDatabase());
    sweeps_->setDatabase(presenter_->databasePath());
}

void MainWindow::showSweeps() {
    tabs_->setCurrentWidget(sweepsView_);
}

void MainWindow::connectSweeps() {
    sweepsView_->setExperimentSource([this] { return doc_->experiment().toJson(); },
                                     [this] {
                                         // A spec names a file: the document's own when it is
                                         // saved as shown, else a copy of it.
                                         if (!doc_->filePath().isEmpty() && !doc_->isModified())
                                             return QFileInfo(doc_->filePath()).absoluteFilePath();
                                         return sweeps_->saveExperiment(doc_->experiment());
                                     });
    connect(sweepsView_, &SweepsView::openRunRequested, this,
            [this](qint64 id) { openRun(id, true); });
    connect(sweeps_, &SweepPresenter::finished, runsView_, &RunsView::refresh);
    // A preset or an edit while the tab is shown: the form offers the new experiment's fields.
    auto fields = [this] {
        if (tabs_->currentWidget() == sweepsView_) sweepsView_->refreshFields();
    };
    connect(doc_, &ExperimentDocument::layersChanged, this, fields);
    connect(doc_, &ExperimentDocument::dataChanged, this, fields);
    connect(doc_, &ExperimentDocument::trainingChanged, this, fields);
}

QString MainWindow::runsDatabasePath() const {
    return presenter_->databasePath();
}

void MainWindow::showRuns() {
    tabs_->setCurrentWidget(runsView_);
}

void MainWindow::showRecordingWarning(const QString& message) {
    statusBar()->showMessage(tr("This run is not recorded: the run store cannot be written"),
                             10000);
    if (presenter_->takeRecordingWarning())  // one clear warning per session
        showError(tr("Run history"), message);
}

void MainWindow::showLastRunOf(const QString& path) {
    if (path.isEmpty()) return;
    const quint64 generation = documentGeneration_;
    const QString name = QFileInfo(path).fileName();
    history_->lastRunOf(
        QFileInfo(path).absoluteFilePath(), this,
        [this, generation, name](const std::optional<StoredRun>& run) {
            if (!run || generation != documentGeneration_) return;  // another experiment since
            hasValidation_ = run->hasValidation();  // the part the confusion matrix shows
            for (const StoredEpoch& e : run->epochs)
                charts_->addEpoch(e.report, run->hasValidation());
            if (!run->epochs.empty())
                confusion_->setReport(run->epochs.back().report, run->hasValidation());
            // The stored curves belong to the run's stack and data: marked stale if they differ.
            try {
                presenter_->resultsFromStored(run->experiment);
            } catch (const std::exception&) {
                // a stored experiment this version cannot read: its curves are not compared
            }
            updateStaleNote();
            // Named with its experiment: `nnwb --compare A B` opens on the Comparison tab, where
            // "Curves of run #13" alone read as one of the compared runs.
            statusBar()->showMessage(tr("Curves of run #%1 of %2 (%3, %4)")
                                         .arg(run->id)
                                         .arg(name, QString::fromStdString(run->startedAt),
                                              QString::fromStdString(runStatusLabel(run->status))),
                                     10000);
        });
}

void MainWindow::openRun(qint64 id, bool model) {
    if (controller_->isBusy() || !maybeSave()) return;
    history_->load({id}, this, [this, model](const RunHistory::Runs& runs, const QString& error) {
        if (!error.isEmpty()) return showError(tr("Open run"), error);
        if (runs.empty() || controller_->isBusy() || !showStoredRun(runs)) return;
        if (model)
            openRunModel(runs.front());
        else
            statusBar()->showMessage(tr("Opened the experiment of run #%1").arg(runs.front().id),
                                     8000);
    });
}

bool MainWindow::showStoredRun(const std::vector<StoredRun>& runs) {
    const StoredRun& run = runs.front();
    try {
        const std::string base = run.experimentFile.empty()
                                     ? std::string(".")
                                     : QFileInfo(QString::fromStdString(run.experimentFile))
                                           .absolutePath()
                                           .toStdString();
        doc_->reset(Experiment::fromJson(run.experiment, base));
    } catch (const std::exception& e) {
        showError(tr("Open run"), QString::fromStdString(e.what()));
        return false;
    }
    clearResults();
    // The run's parts: an opened model's confusion matrix (showConfusion) shows its validation.
    hasValidation_ = run.hasValidation();
    for (const StoredEpoch& e : run.epochs) charts_->addEpoch(e.report, run.hasValidation());
    // An ensemble's member runs (RunHistory::load gives them after it): thin lines under its
    // curves, as after training it.
    int member = 0;
    for (const StoredRun& m : runs)
        if (run.ensembleMembers > 0 && m.ensembleRun == run.id) {
            for (const StoredEpoch& e : m.epochs) {
                EpochReport r = e.report;
                r.model = member;
                charts_->addMemberEpoch(r, m.hasValidation());
            }
            ++member;
        }
    if (!run.epochs.empty()) confusion_->setReport(run.epochs.back().report, run.hasValidation());
    presenter_->resultsFrom(doc_->experiment());
    updateStaleNote();
    tabs_->setCurrentIndex(0);
    return true;
}

void MainWindow::openRunModel(const StoredRun& run) {
    const StoredBundle* model = run.bundle("best");
    if (!model || !QFileInfo::exists(QString::fromStdString(model->path)))
        model = run.bundle("last");
    if (!model || !QFileInfo::exists(QString::fromStdString(model->path))) {
        showError(tr("Open model"),
                  tr("Run #%1 has no stored model file: it ended before an epoch completed, or "
                     "its files were deleted. Its experiment and curves are open.")
                      .arg(run.id));
        return;
    }
    if (run.ensembleMembers > 0) {  // an ensemble predicts; it is no one network's weights
        if (modelActions()->predictWithEnsemble(QString::fromStdString(model->path)))
            statusBar()->showMessage(tr("Predict with the ensemble of run #%1 (%2 members)")
                                         .arg(run.id)
                                         .arg(run.ensembleMembers),
                                     8000);
        showKeptEnsembleConfusion(QString::fromStdString(model->path),
                                  QString::fromStdString(run.dataFile),
                                  QString::fromStdString(run.dataSha256));
        return;
    }
    pendingRunModel_ = tr("the %1 model of run #%2 (epoch %3)")
                           .arg(QString::fromStdString(model->kind))
                           .arg(run.id)
                           .arg(model->epoch);
    presenter_->loadingWeights(doc_->experiment(), model->epoch);
    controller_->loadWeights(doc_->experiment(), QString::fromStdString(model->path), model->epoch);
}

void MainWindow::showKeptEnsembleConfusion(const QString& bundle, const QString& data,
                                           const QString& trainedSha256) {
    // The kept ensemble's matrix on the validation part, as after the Training pane's ensemble
    // (the run's last epoch is its curve's: every member at that epoch, not the kept ensemble).
    if (data.isEmpty()) return;  // no price file stored: the run's curve stays
    auto* job = new KeptEnsembleJob(this);
    const quint64 generation = documentGeneration_;
    auto show = [this, job, generation](const KeptEnsembleFigures& f) {
        job->deleteLater();
        if (generation != documentGeneration_ || controller_->isBusy()) return;  // moved on
        if (!f.error.isEmpty()) {
            statusBar()->showMessage(tr("The kept ensemble's confusion matrix: %1").arg(f.error),
                                     10000);
            return;
        }
        if (f.labelled > 0)
            confusion_->setKeptEnsemble(f.validation, int(f.members), f.dataChanged);
    };
    job->measure(bundle, data, trainedSha256, show);
}

}  // namespace nnwb
