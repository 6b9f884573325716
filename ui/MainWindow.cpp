#include "ui/MainWindow.h"

#include <utility>

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "app/core/ComparisonController.h"
#include "app/core/ExperimentDocument.h"
#include "app/core/LayerStackModel.h"
#include "app/core/RunHistory.h"
#include "app/core/RunPresenter.h"
#include "app/core/SweepPresenter.h"
#include "app/core/TradingPresenter.h"
#include "app/core/WalkForwardPresenter.h"
#include "model/trading/PredictionSignals.h"
#include "ui/AttentionView.h"
#include "ui/ComparisonView.h"
#include "ui/ConfusionTable.h"
#include "ui/DataPanel.h"
#include "ui/ExportActions.h"
#include "ui/FieldUndoFilter.h"
#include "ui/LayerStackEditor.h"
#include "ui/MetricCharts.h"
#include "ui/ModelActions.h"
#include "ui/PaneScrollArea.h"
#include "ui/PredictDialog.h"
#include "ui/PriceChart.h"
#include "ui/PriceChartPane.h"
#include "ui/ReportExport.h"
#include "ui/ResultNotes.h"
#include "ui/RunStatusBar.h"
#include "ui/RunsView.h"
#include "ui/SweepsView.h"
#include "ui/TabPageFit.h"
#include "ui/TradingTab.h"
#include "ui/TradingView.h"
#include "ui/TrainingPanel.h"
#include "ui/WalkForwardView.h"
#include "ui/WindowActions.h"
#include "ui/WindowMenus.h"

namespace nnwb {

namespace {
bool stackHasAttention(const nlohmann::json& model) {
    // The layer types whose Score matrices the view shows (readScores).
    bool attention = false;
    if (model.contains("layers") && model["layers"].is_array())
        for (const nlohmann::json& l : model["layers"]) {
            const std::string type = l.is_object() ? l.value("type", std::string()) : "";
            attention = attention || type == "attention" || type == "attention_stack" ||
                        type == "multihead_attention" || type == "gpt";
        }
    return attention;
}
}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    registerMetaTypes();
    setObjectName(QStringLiteral("nnwbMainWindow"));
    setAcceptDrops(true);
    setDockNestingEnabled(true);
    doc_ = new ExperimentDocument(this);
    stack_ = new LayerStackModel(doc_, this);
    controller_ = new TrainingController(this);
    comparison_ = new ComparisonController(this);
    presenter_ = new RunPresenter(this);
    history_ = new RunHistory(this);

    tabs_ = new QTabWidget(this);
    tabs_->setObjectName(QStringLiteral("centralTabs"));
    tabs_->setDocumentMode(true);
    // In a scroll area: on a 600 px screen the page scrolls instead of growing the window.
    tabs_->addTab(new PaneScrollArea(createExperimentPage()), tr("Experiment"));
    comparisonView_ = new ComparisonView(comparison_, doc_, tabs_);
    tabs_->addTab(comparisonView_, tr("Comparison"));
    runsView_ = new RunsView(history_, tabs_);
    tabs_->addTab(runsView_, tr("Runs"));
    sweeps_ = new SweepPresenter(this);
    sweepsView_ = new SweepsView(sweeps_, tabs_);
    tabs_->addTab(sweepsView_, tr("Sweeps"));
    setCentralWidget(tabs_);
    setRunsDatabase({}, true);

    modelActions_ = new ModelActions(controller_, doc_, this);
    actions_ = new WindowActions(this, doc_->undoStack());
    actions_->addToolBar(this);
    exports_ = new ExportActions(controller_, modelActions_, this,
                                 [this](const QString& t, const QString& m) { showError(t, m); });
    // Ctrl+Z in a field undoes the last document edit, not the field's text.
    qApp->installEventFilter(new FieldUndoFilter(this, actions_->undoAct, actions_->redoAct));
    createDocks();
    reports_ = new ReportExport(this);  // File > Export Report
    menus_ = new WindowMenus(this, actions_, exports_, {modelDock_, dataDock_, trainingDock_});
    runStatus_ =
        new RunStatusBar(statusBar(), controller_, doc_, trainingPanel_->devicePicker(), [this] {
            const auto& r = charts_->reports();
            return r.empty() ? 0 : r.back().epoch;
        });
    connectDocument();
    connectViews();
    connectController();
    connectSweeps();
    attention_->clear(attentionStartText());
    fitTabsToCurrentPage();
    updateTitle();
    updateRunActions();
    exports_->setHaveWeights(false);
    resize(1600, 960);
    editor_->table()->setFocus();
}

MainWindow::~MainWindow() {
    controller_->shutdown();
    comparison_->shutdown();
    // The document and the stack model are children deleted after this destructor: signals
    // they send while being deleted must reach none of the window's helpers (UBSan).
    doc_->disconnect();
    stack_->disconnect();
}

QWidget* MainWindow::createExperimentPage() {
    auto* central = new QWidget(tabs_);
    auto* centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(4, 4, 4, 4);
    notes_ = new ResultNotes(central, centralLayout);
    auto* vsplit = new QSplitter(Qt::Vertical, central);
    vsplit->setObjectName(QStringLiteral("centralSplitter"));
    upperTabs_ = new QTabWidget(vsplit);
    upperTabs_->setObjectName(QStringLiteral("upperTabs"));
    upperTabs_->setDocumentMode(true);
    charts_ = new MetricCharts(upperTabs_);
    upperTabs_->addTab(charts_, tr("Metrics"));
    priceChart_ = new PriceChartPane(upperTabs_);
    upperTabs_->addTab(priceChart_, tr("Price Chart"));
    trading_ = new TradingPresenter(this);
    trading_->setSettings(doc_->experiment().trading);
    auto followTrading = [this] { trading_->setSettings(doc_->experiment().trading); };
    connect(doc_, &ExperimentDocument::tradingChanged, trading_, followTrading);
    connect(doc_, &ExperimentDocument::replaced, trading_, followTrading);
    priceChart_->setTrading(trading_);
    walkForward_ = new WalkForwardPresenter(trading_, this);
    walkForwardView_ = new WalkForwardView(walkForward_, upperTabs_);
    upperTabs_->addTab(walkForwardView_, tr("Walk-Forward"));
    // The Trading tab beside Price Chart: a click on a trade shows it on the price chart.
    tradingTab_ = new TradingTab(trading_, walkForward_, upperTabs_);
    upperTabs_->insertTab(upperTabs_->indexOf(priceChart_) + 1, tradingTab_, tr("Trading"));
    // Its figures table, rules and exports under the verdict (under the price chart they got
    // 22-28 px at 1280x720).
    tradingTab_->setFiguresView(new TradingView(trading_, doc_));
    connect(tradingTab_, &TradingTab::showTradeRequested, this,
            [this](qulonglong entryBar, qulonglong exitBar) {
                // A prediction's trades are on the Predict window's chart (another file).
                PredictDialog* predict = modelActions_->predictDialog();
                if (predict && predict->shownBars() && predict->shownBars() == trading_->bars()) {
                    predict->chart()->showTrade(entryBar, exitBar);
                    predict->raise();
                    return;
                }
                upperTabs_->setCurrentWidget(priceChart_);
                priceChart_->showTrade(entryBar, exitBar);
            });
    auto* hsplit = new QSplitter(Qt::Horizontal, vsplit);
    hsplit->setObjectName(QStringLiteral("lowerSplitter"));
    attention_ = new AttentionView(hsplit);
    confusion_ = new ConfusionTable(hsplit);
    hsplit->setStretchFactor(0, 3);
    hsplit->setStretchFactor(1, 1);
    vsplit->setStretchFactor(0, 1);
    vsplit->setStretchFactor(1, 1);
    vsplit->setCollapsible(0, false);  // the lower pane collapses under Trading, Walk-Forward
    vsplit->setCollapsible(1, true);
    connect(vsplit, &QSplitter::splitterMoved, this, [this] { centralSplitMoved_ = true; });
    // Only the page on show sets the upper tabs' minimum height (the Price Chart page's would
    // otherwise squeeze the heatmaps under the Metrics tab at 1280×720).
    connect(upperTabs_, &QTabWidget::currentChanged, this, [this] {
        fitTabWidgetToCurrentPage(upperTabs_);
        fitCentralSplitToUpperTab();
    });
    fitTabWidgetToCurrentPage(upperTabs_);
    centralLayout->addWidget(vsplit, 1);
    return central;
}

QAction* MainWindow::trainAction() const {
    return actions_->trainAct;
}
QAction* MainWindow::pauseAction() const {
    return actions_->pauseAct;
}
QAction* MainWindow::stopAction() const {
    return actions_->stopAct;
}
QAction* MainWindow::undoAction() const {
    return actions_->undoAct;
}
QAction* MainWindow::redoAction() const {
    return actions_->redoAct;
}
QLabel* MainWindow::staleNote() const {
    return notes_->staleNote();
}

void MainWindow::connectDocument() {
    connect(doc_, &ExperimentDocument::modifiedChanged, this, [this] { updateTitle(); });
    connect(doc_, &ExperimentDocument::filePathChanged, this, [this] { updateTitle(); });
    connect(doc_, &ExperimentDocument::editRejected, this, [this](const QString& why) {
        statusBar()->showMessage(tr("Not changed: %1").arg(why), 8000);
    });
    connect(stack_, &LayerStackModel::changed, this, [this] {
        updateRunActions();
        updateStaleNote();
    });
    // Nothing trained yet: the heatmaps' text says what the stack as it is now would show.
    connect(doc_, &ExperimentDocument::layersChanged, this, [this] {
        if (!attention_->snapshot() && charts_->reports().empty() && !controller_->isBusy())
            attention_->clear(attentionStartText());
    });
    // Another experiment: nothing of the previous one's results stays on show. A run still
    // going keeps reporting; its results are then marked as not the document's.
    connect(doc_, &ExperimentDocument::replaced, this, [this] {
        ++documentGeneration_;
        clearResults();
        notes_->hideError();
        updateStaleNote();
    });
    using A = QAction;
    connect(actions_->newAct, &A::triggered, this, &MainWindow::newExperiment);
    connect(actions_->openAct, &A::triggered, this, &MainWindow::openDialog);
    connect(actions_->saveAct, &A::triggered, this, &MainWindow::save);
    connect(actions_->saveAsAct, &A::triggered, this, &MainWindow::saveAs);
    connect(actions_->trainAct, &A::triggered, this, &MainWindow::trainRequested);
    connect(actions_->pauseAct, &A::triggered, this, &MainWindow::togglePause);
    connect(actions_->stopAct, &A::triggered, this, &MainWindow::stopTraining);
}

void MainWindow::connectViews() {
    connect(attention_, &AttentionView::sampleRequested, controller_,
            &TrainingController::requestScores);
    connect(attention_, &AttentionView::bestWeightsRequested, controller_,
            &TrainingController::setScoresOfBest);
    connect(attention_, &AttentionView::bestWeightsRequested, this, [this] { showConfusion(); });
    connect(priceChart_, &PriceChartPane::validationSampleClicked, attention_,
            &AttentionView::showSample);
    connect(dataPanel_, &DataPanel::priceFileInspected, this, [this](bool ok, const QString& m) {
        if (ok)
            priceChart_->setFileBars(dataPanel_->bars());
        else
            statusBar()->showMessage(tr("Import failed: %1").arg(m), 8000);
    });
    connect(dataPanel_, &DataPanel::problemChanged, this, &MainWindow::updateRunActions);
    // The docks edit the current experiment; the Comparison tab has the whole width.
    connect(tabs_, &QTabWidget::currentChanged, this, &MainWindow::tabChanged);
    connect(presenter_, &RunPresenter::weightsChanged, exports_, &ExportActions::setHaveWeights);
    connect(runsView_, &RunsView::openExperimentRequested, this,
            [this](qint64 id) { openRun(id, false); });
    connect(runsView_, &RunsView::openModelRequested, this,
            [this](qint64 id) { openRun(id, true); });
    connect(comparison_, &ComparisonController::recordingWarning, this,
            &MainWindow::showRecordingWarning);
    connect(comparison_, &ComparisonController::allFinished, runsView_, &RunsView::refresh);
    // Run > Predict: the Trading tab shows the prediction's trading too (its trades on the
    // Predict window's chart); the run's next epoch or walk-forward replaces it.
    connect(modelActions_, &ModelActions::predictionShown, this, [this] {
        PredictDialog* d = modelActions_->predictDialog();
        if (!d || !d->result() || !d->shownBars()) return;
        trading_->setSeries(d->shownBars(),
                            std::make_shared<const SignalSeries>(signalsOf(*d->result())),
                            tr("the prediction on %1").arg(QFileInfo(d->shownPath()).fileName()));
        upperTabs_->setCurrentWidget(tradingTab_);
    });
}

void MainWindow::connectController() {
    using C = TrainingController;
    connect(controller_, &C::stateChanged, this, &MainWindow::updateRunActions);
    connect(controller_, &C::runStarted, this, &MainWindow::runStarted);
    connect(controller_, &C::epochFinished, this, &MainWindow::epochFinished);
    connect(controller_, &C::attentionReady, this, [this](const AttentionSnapshotPtr& s) {
        attention_->setSnapshot(s);
        updateStaleNote();
    });
    connect(controller_, &C::recordingWarning, this, &MainWindow::showRecordingWarning);
    connect(controller_, &C::runFinished, this, &MainWindow::runFinished);
    connect(controller_, &C::weightsLoaded, this, &MainWindow::weightsLoaded);
    connect(controller_, &C::modelSignals, priceChart_, &PriceChartPane::showModelSignals);
    // An ensemble's run (training.ensemble > 1): its members' curves thin under its own; once
    // kept, its signals and agreement on the validation part under the candles.
    connect(controller_, &C::memberEpochFinished, this,
            [this](const EpochReport& r) { charts_->addMemberEpoch(r, hasValidation_); });
    connect(controller_, &C::ensembleKept, this, [this](const EnsembleKept& k) {
        attention_->setModelNote(QString::fromStdString(k.attentionOf));  // its best member's
        priceChart_->showKeptEnsemble(k);
        // The kept ensemble's matrix (the one the price chart trades), not its curve's last
        // epoch (every member at that epoch).
        if (k.taskMetrics) confusion_->setKeptEnsemble(k.validation, k.members);
    });
    // The trained or loaded network's own heatmaps from now on.
    connect(controller_, &C::runStarted, this, [this] { attention_->setModelNote({}); });
    connect(controller_, &C::weightsLoaded, this, [this] { attention_->setModelNote({}); });
    connectWalkForward();
}

void MainWindow::runStarted(const RunInfo& info) {
    if (!walkForward_->running()) priceChart_->runStarted(info);  // a fold's: the folds stay
    hasValidation_ = info.validationSamples > 0;
}

void MainWindow::epochFinished(const EpochReport& r) {
    charts_->addEpoch(r, hasValidation_);
    if (!walkForward_->running()) priceChart_->epochFinished(r);
    showConfusion();
    updateStaleNote();
    presenter_->epochDone();
}

void MainWindow::runFinished(RunEnd end, const QString& message) {
    runsView_->refresh();
    if (!attention_->snapshot() && !walkForward_->active())
        attention_->clear(end == RunEnd::Failed || charts_->reports().empty()
                              ? tr("No Score matrices: the run ended early.")
                          : stackHasAttention(doc_->experiment().model)
                              ? tr("No Score matrices came from this run's network.")
                              : tr("This stack has no attention layer, so there are "
                                   "no Score matrices to show."));
    // A walk-forward keeps no model (each fold's is its own).
    presenter_->runEnded(!walkForward_->active() && !charts_->reports().empty() &&
                         end != RunEnd::Failed);
    walkForward_->runEnded();
    if (end == RunEnd::Failed) {
        lastError_ = message;
        showError(tr("Training stopped"), message);
        return;
    }
    // "Finished: walk-forward, 3 folds; out of sample: …" (with "Training " first it was 708 px
    // in 666-677 at 1280x720); fitted left of the permanent widgets, else whole in the tooltip.
    const bool done = end == RunEnd::Completed;
    const QString text = message.isEmpty()
                             ? (done ? tr("Training finished") : tr("Training stopped"))
                         : done ? tr("Finished: %1").arg(message)
                                : tr("Stopped: %1").arg(message);
    runStatus_->showFitted(text, QString(), 15000);
}

void MainWindow::weightsLoaded(bool ok, const QString& message) {
    const QString runModel = std::exchange(pendingRunModel_, QString());
    presenter_->weightsLoaded(ok, doc_->experiment());
    if (!ok) return showError(runModel.isEmpty() ? tr("Load weights") : tr("Open model"), message);
    notes_->hideError();        // an earlier failed load's error is no longer true
    if (!runModel.isEmpty()) {  // the run's curves stay; its heatmaps come now
        showConfusion();        // of the opened model's epoch
        attention_->showSample(attention_->sampleBox()->value());
        statusBar()->showMessage(
            tr("Opened %1: Predict…, Export Model and ONNX use it; Train continues from it")
                .arg(runModel),
            15000);
        return;
    }
    charts_->clear();
    confusion_->clear();
    statusBar()->showMessage(tr("Loaded the weights of %1; Train continues from them").arg(message),
                             15000);
}

void MainWindow::showConfusion() {
    const auto& reports = charts_->reports();
    if (reports.empty()) return confusion_->clear();
    // The epoch whose weights are on show: an opened run model's, else the heatmaps' picker's
    // (the best epoch's or the latest).
    int epoch = presenter_->modelEpoch();
    if (epoch <= 0 && attention_->weightsBox()->currentIndex() == 1)
        epoch = reports.back().bestEpoch;
    const EpochReport* shown = &reports.back();
    for (const EpochReport& r : reports)
        if (r.epoch == epoch) shown = &r;
    confusion_->setReport(*shown, hasValidation_);
}

bool MainWindow::canContinue() const {
    return presenter_->canContinue(doc_->experiment());
}

void MainWindow::trainRequested() {
    // A walk-forward trains every fold afresh: nothing to continue, nothing to ask.
    if (!canContinue() || doc_->experiment().validation.walkForward()) {
        startTraining();
        return;
    }
    // Loaded weights come without an optimizer state or epoch count: continuing them starts
    // a fresh optimizer at epoch 1 (and their current weights are their best).
    const bool fromFile = presenter_->weightsFromFile();
    QMessageBox box(
        QMessageBox::Question, tr("Train"),
        fromFile ? tr("This model has weights loaded from a file. Continue training them (with a "
                      "fresh optimizer, counting epochs from 1: a file keeps no optimizer state) "
                      "or start over?")
                 : tr("This model has trained weights. Continue training them (keeping the "
                      "optimizer state and the epoch numbering) or start over?"),
        QMessageBox::NoButton, this);
    QPushButton* current =
        box.addButton(fromFile ? tr("Continue from loaded") : tr("Continue from current"),
                      QMessageBox::AcceptRole);
    QPushButton* best = nullptr;
    if (!fromFile) best = box.addButton(tr("Continue from best"), QMessageBox::AcceptRole);
    QPushButton* restart = box.addButton(tr("Restart"), QMessageBox::DestructiveRole);
    box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(current);
    // An ensemble (trained here or opened from the Runs tab) is the window's model: the run
    // engine trains a population from the start only, and the worker's one network (member 1
    // or an earlier run's) is not that model, so nothing is continued.
    if (!modelActions_->ensembleFile().isEmpty()) {
        // Restart trains what the experiment now asks for (Ensemble of N seeds may be 1).
        const int seeds = doc_->experiment().training.ensemble;
        const QString why =
            tr("The model is an ensemble of seeds, and an ensemble cannot be "
               "continued: its members train together from the start. ") +
            (seeds > 1 ? tr("Restart trains a new ensemble of %1 seeds (raise Epochs to train "
                            "longer).")
                             .arg(seeds)
                       : tr("Restart trains one model (Ensemble of N seeds is 1)."));
        box.setText(why);
        for (QPushButton* b : {current, best})
            if (b) {
                b->setEnabled(false);
                b->setToolTip(why);
            }
        box.setDefaultButton(restart);
    }
    box.exec();
    if (box.clickedButton() == current)
        startTraining(0, StartMode::ContinueCurrent);
    else if (best && box.clickedButton() == best)
        startTraining(0, StartMode::ContinueBest);
    else if (box.clickedButton() == restart)
        startTraining(0, StartMode::Restart);
}

void MainWindow::loadWeights(const QString& path) {
    if (controller_->isBusy()) return showError(tr("Load weights"), tr("Stop the run first."));
    presenter_->loadingWeights(doc_->experiment());
    controller_->loadWeights(doc_->experiment(), path);
}

bool MainWindow::startTraining(int epochs, StartMode mode) {
    updateRunActions();
    if (!actions_->trainAct->isEnabled() || controller_->isBusy()) return false;
    if (mode != StartMode::Restart && !modelActions_->ensembleFile().isEmpty()) {
        // The worker's one network is not the ensemble on show (see trainRequested).
        showError(tr("Train"), tr("An ensemble cannot be continued: Restart trains a new one."));
        return false;
    }
    notes_->hideError();
    lastError_.clear();
    // A continued run goes on numbering its epochs on the same charts.
    if (mode == StartMode::Restart) charts_->clear();
    walkForward_->clear();
    presenter_->runStarting(doc_->experiment(), mode);
    runStatus_->runStarting();
    confusion_->clear();
    // An ensemble's heatmaps are its best member's, once it is kept: its epochs bring none (the
    // pane said "Waiting for the first epoch…" through every epoch).
    const Experiment& e = doc_->experiment();
    attention_->clear(e.training.ensemble > 1 && !e.validation.walkForward()
                          ? tr("The heatmaps of the ensemble's best member show here once its "
                               "%1 seeds have trained.")
                                .arg(e.training.ensemble)
                          : tr("Waiting for the first epoch…"));
    presenter_->resultsFrom(doc_->experiment());
    updateStaleNote();
    controller_->setRecording(presenter_->recordingFor(doc_->filePath()));
    const bool ok = controller_->start(doc_->experiment(), epochs, mode);
    updateRunActions();
    return ok;
}

QString MainWindow::attentionStartText() const {
    return stackHasAttention(doc_->experiment().model)
               ? tr("Train this stack to see the Score matrices of its attention layer "
                    "here.")
               : tr("Train a stack with an attention layer to see its Score matrices "
                    "here.");
}

void MainWindow::clearResults() {
    presenter_->clearModelEpoch();
    charts_->clear();
    confusion_->clear();
    attention_->clear(attentionStartText());
    if (!controller_->isBusy()) {
        walkForward_->clear();
        priceChart_->clearRun();
        runStatus_->clear();
    }
}

bool MainWindow::hasResults() const {
    return !charts_->reports().empty() || attention_->snapshot() != nullptr;
}

bool MainWindow::resultsAreStale() const {
    return presenter_->resultsAreStale(hasResults(), doc_->experiment());
}

void MainWindow::updateStaleNote() {
    notes_->setStale(resultsAreStale());
}

void MainWindow::updateRunActions() {
    // The stack's problem first, then the data's (a price file too short for one window).
    QString problem = stack_->problem();
    if (problem.isEmpty()) problem = dataPanel_->problem();
    actions_->updateRunActions(controller_->state(), problem);
}

void MainWindow::togglePause() {
    if (controller_->state() == TrainingController::State::Running)
        controller_->pause();
    else if (controller_->state() == TrainingController::State::Paused)
        controller_->resume();
}

void MainWindow::stopTraining() {
    controller_->stop();
}

void MainWindow::updateTitle() {
    setWindowTitle(tr("%1[*] — nnwb").arg(doc_->displayName()));
    setWindowModified(doc_->isModified());
}

void MainWindow::showError(const QString& title, const QString& message) {
    notes_->showError(title, message);
    statusBar()->showMessage(
        title + QStringLiteral(": ") + message.section(QLatin1Char('\n'), 0, 0), 10000);
    if (confirmDiscard_) {
        auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    }
}

}  // namespace nnwb
