// MainWindow and files: New, Open (an experiment, or a price file as its data), drops, Save,
// Save As, the question before unsaved changes go, and closing (with a run going).
#include <QCloseEvent>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QStatusBar>

#include "app/core/ComparisonController.h"
#include "app/core/ExperimentDocument.h"
#include "app/core/Presets.h"
#include "app/core/RunPresenter.h"
#include "app/core/SweepPresenter.h"
#include "app/core/TrainingController.h"
#include "ui/DataPanel.h"
#include "ui/FileDialogs.h"
#include "ui/MainWindow.h"

namespace nnwb {

bool MainWindow::isExperimentFile(const QString& path) {
    // An experiment is a JSON object: its first character (after a UTF-8 BOM and blanks) is
    // '{'. Price files (MT5, MT4, generic CSV, UTF-16 included) never start with one.
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive);
    QByteArray head = f.read(4096);
    if (head.startsWith("\xEF\xBB\xBF")) head.remove(0, 3);
    head = head.trimmed();
    return head.startsWith('{') ||
           (head.isEmpty() && path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive));
}

bool MainWindow::openFile(const QString& path) {
    if (isExperimentFile(path)) return maybeSave() && openExperiment(path);
    // A price file: it becomes the experiment's data (an undoable edit), with its summary or
    // its FILE:LINE error in the Data pane.
    dataDock_->show();
    dataDock_->raise();
    dataPanel_->openPriceFile(path);
    statusBar()->showMessage(
        tr("%1 is not an experiment: reading it as price data").arg(QFileInfo(path).fileName()),
        6000);
    return true;
}

bool MainWindow::openExperiment(const QString& path) {
    QString error;
    if (!doc_->open(path, &error)) {
        showError(tr("Open experiment"), error);
        return false;
    }
    QSettings().setValue(QStringLiteral("lastExperiment"), doc_->filePath());
    showLastRunOf(doc_->filePath());
    return true;
}

void MainWindow::newExperiment() {
    if (!maybeSave()) return;
    doc_->reset(builtinExperiment());
}

void MainWindow::openDialog() {
    const QString path = openFileName(
        this, tr("Open experiment or price data"), QFileInfo(doc_->filePath()).absolutePath(),
        tr("nnwb experiments (*.json);;Price data (*.csv *.txt *.tsv);;All files (*)"));
    if (!path.isEmpty()) openFile(path);
}

bool MainWindow::save() {
    if (doc_->filePath().isEmpty()) return saveAs();
    QString error;
    if (!doc_->save({}, &error)) {
        showError(tr("Save experiment"), error);
        return false;
    }
    QSettings().setValue(QStringLiteral("lastExperiment"), doc_->filePath());
    statusBar()->showMessage(tr("Saved %1").arg(doc_->filePath()), 4000);
    return true;
}

bool MainWindow::saveAs() {
    const QString path = saveFileName(
        this, tr("Save experiment"),
        doc_->filePath().isEmpty() ? QStringLiteral("experiment.json") : doc_->filePath(),
        tr("nnwb experiments (*.json)"));
    if (path.isEmpty()) return false;
    QString error;
    if (!doc_->save(path, &error)) {
        showError(tr("Save experiment"), error);
        return false;
    }
    QSettings().setValue(QStringLiteral("lastExperiment"), doc_->filePath());
    return true;
}

bool MainWindow::maybeSave() {
    if (!confirmDiscard_ || !doc_->isModified()) return true;
    const auto answer = QMessageBox::question(
        this, tr("Unsaved changes"),
        tr("%1 has unsaved changes. Save them?").arg(doc_->displayName()),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Cancel) return false;
    if (answer == QMessageBox::Save) return save();
    return true;
}

void MainWindow::closeEvent(QCloseEvent* e) {
    const bool running = controller_->isBusy() || comparison_->isBusy();
    const bool sweeping = sweeps_->isRunning();
    if (confirmDiscard_ && (running || sweeping || doc_->isModified())) {
        // The run waits while the window asks (it trained on behind the dialogs); the unsaved
        // changes are asked about first, the run last: its Yes is the one that closes.
        const bool paused = controller_->state() == TrainingController::State::Running;
        if (paused) controller_->pause();
        auto keepGoing = [this, paused, e] {
            if (paused) controller_->resume();
            e->ignore();
        };
        if (!maybeSave()) return keepGoing();
        if (running || sweeping) {
            const auto answer = QMessageBox::question(
                this, sweeping && !running ? tr("Sweep in progress") : tr("Training in progress"),
                closeQuestion(running, sweeping), QMessageBox::Yes | QMessageBox::Cancel,
                QMessageBox::Cancel);
            if (answer != QMessageBox::Yes) return keepGoing();
        }
    }
    saveWindowState();
    controller_->shutdown();
    comparison_->shutdown();
    sweeps_->stop();  // the destructor waits for its coordinator to stop the trials
    e->accept();
}

QString MainWindow::closeQuestion(bool running, bool sweeping) const {
    // What is kept: a recorded run's best and last models are written to the run store as it
    // stops (RunEngine::finish); an unrecorded one keeps nothing.
    QString text;
    if (running)
        text = presenter_->recording().enabled
                   ? tr("A run is going. Stop it and close the window? The run is kept in the "
                        "run store (Runs tab) with its best and last models so far.")
                   : tr("A run is going. Stop it and close the window? Recording is off: the "
                        "run's weights are lost unless you export them first.");
    if (sweeping)
        text += (text.isEmpty() ? QString() : QStringLiteral("\n\n")) +
                tr("A sweep is running. Stop it and close the window? Its finished trials are "
                   "kept in the run store; the trials it stops are queued again, and Resume "
                   "in the Sweeps tab (or nnwb-cli sweep resume) runs them.");
    return text;
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
    if (e->mimeData()->hasUrls()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
    const auto urls = e->mimeData()->urls();
    if (urls.isEmpty() || !urls.first().isLocalFile()) return;
    openFile(urls.first().toLocalFile());
    e->acceptProposedAction();
}

}  // namespace nnwb
