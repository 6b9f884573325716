#include "ui/MainWindow.h"

#include <cmath>

#include <utility>

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QToolBar>
#include <QTreeWidget>
#include <QUndoStack>
#include <QVBoxLayout>

#include "app/core/ComparisonController.h"
#include "app/core/ExperimentDocument.h"
#include "app/core/LayerStackModel.h"
#include "app/core/Presets.h"
#include "app/runs/RunStore.h"
#include "app/runs/RunsDbPath.h"
#include "ui/AttentionView.h"
#include "ui/ComparisonView.h"
#include "ui/ConfusionTable.h"
#include "ui/DataPanel.h"
#include "ui/DevicePicker.h"
#include "ui/FieldHelp.h"
#include "ui/FieldUndoFilter.h"
#include "ui/HelpMenu.h"
#include "ui/LayerStackEditor.h"
#include "ui/MetricCharts.h"
#include "ui/ModelActions.h"
#include "ui/PaneScrollArea.h"
#include "ui/PriceChartPane.h"
#include "ui/RunsView.h"
#include "ui/TrainingPanel.h"

namespace nnwb {

namespace {
// What results belong to: the data settings (the file as an absolute path, so that a stored
// run's absolute path equals the experiment's relative one) and the layer stack.
nlohmann::json resultsKey(const Experiment& e) {
    return {{"data", e.dataWithAbsoluteFile()},
            {"layers", e.model.value("layers", nlohmann::json::array())}};
}
}  // namespace

namespace {
QString duration(double seconds) {
    if (seconds < 0 || !std::isfinite(seconds)) return QStringLiteral("–");
    const qint64 s = static_cast<qint64>(seconds + 0.5);
    if (s >= 3600)
        return QStringLiteral("%1:%2:%3")
            .arg(s / 3600)
            .arg((s / 60) % 60, 2, 10, QLatin1Char('0'))
            .arg(s % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
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

    tabs_ = new QTabWidget(this);
    tabs_->setObjectName(QStringLiteral("centralTabs"));
    tabs_->setDocumentMode(true);
    auto* central = new QWidget(tabs_);
    auto* centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(4, 4, 4, 4);
    banner_ = new QLabel(central);
    banner_->setObjectName(QStringLiteral("errorBanner"));
    banner_->setWordWrap(true);
    banner_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    banner_->setStyleSheet(
        QStringLiteral("QLabel { color: #7a1010; background: #fde2e1; border: 1px solid #f0b4b0;"
                       " border-radius: 3px; padding: 6px; }"));
    banner_->hide();
    centralLayout->addWidget(banner_);
    staleNote_ = new QLabel(central);
    staleNote_->setObjectName(QStringLiteral("staleResultsNote"));
    staleNote_->setWordWrap(true);
    staleNote_->setStyleSheet(
        QStringLiteral("QLabel { color: #5c4400; background: #fff4d1; border: 1px solid #e8d08a;"
                       " border-radius: 3px; padding: 6px; }"));
    staleNote_->hide();
    centralLayout->addWidget(staleNote_);
    auto* vsplit = new QSplitter(Qt::Vertical, central);
    vsplit->setObjectName(QStringLiteral("centralSplitter"));
    upperTabs_ = new QTabWidget(vsplit);
    upperTabs_->setObjectName(QStringLiteral("upperTabs"));
    upperTabs_->setDocumentMode(true);
    charts_ = new MetricCharts(upperTabs_);
    upperTabs_->addTab(charts_, tr("Metrics"));
    priceChart_ = new PriceChartPane(upperTabs_);
    upperTabs_->addTab(priceChart_, tr("Price Chart"));
    auto* hsplit = new QSplitter(Qt::Horizontal, vsplit);
    hsplit->setObjectName(QStringLiteral("lowerSplitter"));
    attention_ = new AttentionView(hsplit);
    confusion_ = new ConfusionTable(hsplit);
    hsplit->setStretchFactor(0, 3);
    hsplit->setStretchFactor(1, 1);
    vsplit->setStretchFactor(0, 1);
    vsplit->setStretchFactor(1, 1);
    vsplit->setChildrenCollapsible(false);
    centralLayout->addWidget(vsplit, 1);
    tabs_->addTab(central, tr("Experiment"));
    comparisonView_ = new ComparisonView(comparison_, doc_, tabs_);
    tabs_->addTab(comparisonView_, tr("Comparison"));
    runsView_ = new RunsView(tabs_);
    tabs_->addTab(runsView_, tr("Runs"));
    setCentralWidget(tabs_);
    recording_.source = "window";
    setRunStore({}, true);

    modelActions_ = new ModelActions(controller_, doc_, this);
    createActions();
    // Ctrl+Z in a field undoes the last document edit, not the field's text.
    qApp->installEventFilter(new FieldUndoFilter(this, undoAct_, redoAct_));
    createDocks();
    createMenus();
    createStatusBar();
    connectController();

    connect(doc_, &ExperimentDocument::modifiedChanged, this, [this] { updateTitle(); });
    connect(doc_, &ExperimentDocument::filePathChanged, this, [this] { updateTitle(); });
    connect(doc_, &ExperimentDocument::recentFilesChanged, this, [this] { rebuildRecentMenu(); });
    connect(doc_, &ExperimentDocument::editRejected, this, [this](const QString& why) {
        statusBar()->showMessage(tr("Not changed: %1").arg(why), 8000);
    });
    connect(stack_, &LayerStackModel::changed, this, [this] {
        updateRunActions();
        updateStaleNote();
    });
    // Another experiment: nothing of the previous one's results stays on show. A run still
    // going keeps reporting; its results are then marked as not the document's.
    connect(doc_, &ExperimentDocument::replaced, this, [this] {
        clearResults();
        banner_->hide();
        updateStaleNote();
    });
    connect(attention_, &AttentionView::sampleRequested, controller_,
            &TrainingController::requestScores);
    connect(attention_, &AttentionView::bestWeightsRequested, controller_,
            &TrainingController::setScoresOfBest);
    connect(attention_, &AttentionView::bestWeightsRequested, this, [this] { showConfusion(); });
    connect(priceChart_, &PriceChartPane::validationSampleClicked, attention_,
            &AttentionView::showSample);
    connect(dataPanel_, &DataPanel::priceFileInspected, this, [this](bool ok) {
        if (ok) priceChart_->setFileBars(dataPanel_->bars());
    });
    // The docks edit the current experiment; the Comparison tab has the whole width.
    connect(tabs_, &QTabWidget::currentChanged, this, [this](int index) {
        QDockWidget* docks[3] = {modelDock_, dataDock_, trainingDock_};
        const bool comparing =
            tabs_->widget(index) == comparisonView_ || tabs_->widget(index) == runsView_;
        if (tabs_->widget(index) == runsView_) runsView_->refresh();
        fitTabsToCurrentPage();
        // Which docks were shown is noted when leaving the Experiment tab only: noted again
        // between Comparison and Runs (docks already hidden) it lost them for good.
        if (comparing == docksHidden_) return;
        docksHidden_ = comparing;
        for (int i = 0; i < 3; ++i) {
            if (comparing) {
                docksShown_[i] = docks[i]->isVisible();
                docks[i]->hide();
            } else if (docksShown_[i]) {
                docks[i]->show();
            }
        }
    });
    fitTabsToCurrentPage();
    updateTitle();
    updateRunActions();
    updateWeightsActions();
    resize(1600, 960);
    editor_->table()->setFocus();
}

MainWindow::~MainWindow() {
    controller_->shutdown();
    comparison_->shutdown();
    // The document and the stack model are children deleted after this destructor: signals
    // they send while being deleted must not reach this half-destroyed window (UBSan).
    disconnect(doc_, nullptr, this, nullptr);
    disconnect(stack_, nullptr, this, nullptr);
}

void MainWindow::showPriceChart() {
    tabs_->setCurrentIndex(0);
    upperTabs_->setCurrentWidget(priceChart_);
}

void MainWindow::showComparison(bool on) {
    tabs_->setCurrentWidget(on ? static_cast<QWidget*>(comparisonView_) : tabs_->widget(0));
}

void MainWindow::createActions() {
    auto make = [this](const QString& text, const QKeySequence& key, const QString& tip,
                       QStyle::StandardPixmap icon) {
        auto* a = new QAction(style()->standardIcon(icon), text, this);
        if (!key.isEmpty()) a->setShortcut(key);
        a->setToolTip(tip);
        a->setStatusTip(tip);
        return a;
    };
    newAct_ = make(tr("&New"), QKeySequence::New, tr("New experiment"), QStyle::SP_FileIcon);
    openAct_ = make(tr("&Open…"), QKeySequence(Qt::CTRL | Qt::Key_O), tr("Open an experiment"),
                    QStyle::SP_DialogOpenButton);
    saveAct_ = make(tr("&Save"), QKeySequence(Qt::CTRL | Qt::Key_S), tr("Save the experiment"),
                    QStyle::SP_DialogSaveButton);
    saveAsAct_ = make(tr("Save &As…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S),
                      tr("Save the experiment under a new name"), QStyle::SP_DialogSaveButton);
    exportWeightsAct_ =
        make(tr("Export &Weights…"), {}, tr("Save the trained weights"), QStyle::SP_DriveHDIcon);
    exportOnnxAct_ = make(tr("&ONNX…"), {},
                          tr("Export the trained model as ONNX for MetaTrader 5: raw features in, "
                             "none/buy/sell scores out"),
                          QStyle::SP_DriveHDIcon);
    exportOnnxAct_->setObjectName(QStringLiteral("exportOnnxAction"));
    exportOnnxAct_->setEnabled(false);  // until there are trained or loaded weights
    connect(exportOnnxAct_, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export ONNX model"), QStringLiteral("model.onnx"), tr("ONNX (*.onnx)"));
        if (!path.isEmpty()) controller_->exportOnnx(path, 1);  // batch 1: one bar per call
    });
    connect(newAct_, &QAction::triggered, this, &MainWindow::newExperiment);
    connect(openAct_, &QAction::triggered, this, &MainWindow::openDialog);
    connect(saveAct_, &QAction::triggered, this, &MainWindow::save);
    connect(saveAsAct_, &QAction::triggered, this, &MainWindow::saveAs);
    exportWeightsAct_->setEnabled(false);
    connect(exportWeightsAct_, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export weights"),
                                                          QStringLiteral("weights.safetensors"),
                                                          tr("safetensors (*.safetensors)"));
        if (!path.isEmpty()) controller_->saveWeights(path);
    });

    undoAct_ = doc_->undoStack()->createUndoAction(this, tr("&Undo"));
    undoAct_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Z));
    undoAct_->setIcon(style()->standardIcon(QStyle::SP_ArrowBack));
    redoAct_ = doc_->undoStack()->createRedoAction(this, tr("&Redo"));
    redoAct_->setShortcuts(
        {QKeySequence(Qt::CTRL | Qt::Key_Y), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z)});
    redoAct_->setIcon(style()->standardIcon(QStyle::SP_ArrowForward));
    // The tool bar shows short fixed labels (the menus and tooltips say what would be undone),
    // so that the buttons after them do not move as the undo text changes.
    undoAct_->setIconText(tr("Undo"));
    redoAct_->setIconText(tr("Redo"));
    // The lambdas hold the actions, not the window: the actions change while the window's
    // children are destroyed, when `this` is no longer a MainWindow (UBSan's vptr check).
    for (QAction* a : {undoAct_, redoAct_})
        connect(a, &QAction::changed, a,
                [a] { a->setToolTip(a->text().remove(QLatin1Char('&'))); });

    trainAct_ =
        make(tr("&Train"), QKeySequence(Qt::Key_F5), tr("Train (F5)"), QStyle::SP_MediaPlay);
    trainAct_->setObjectName(QStringLiteral("trainAction"));
    pauseAct_ = make(tr("&Pause"), QKeySequence(Qt::Key_F6), tr("Pause / resume (F6)"),
                     QStyle::SP_MediaPause);
    stopAct_ = make(tr("&Stop"), QKeySequence(Qt::SHIFT | Qt::Key_F5), tr("Stop (Shift+F5)"),
                    QStyle::SP_MediaStop);
    connect(trainAct_, &QAction::triggered, this, &MainWindow::trainRequested);
    connect(pauseAct_, &QAction::triggered, this, &MainWindow::togglePause);
    connect(stopAct_, &QAction::triggered, this, &MainWindow::stopTraining);

    auto* bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("mainToolBar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->setMovable(false);
    bar->addAction(openAct_);
    bar->addAction(saveAct_);
    bar->addSeparator();
    bar->addAction(undoAct_);
    bar->addAction(redoAct_);
    bar->addSeparator();
    bar->addAction(trainAct_);
    bar->addAction(pauseAct_);
    bar->addAction(stopAct_);
}

void MainWindow::createDocks() {
    editor_ = new LayerStackEditor(stack_);
    dataPanel_ = new DataPanel(doc_);
    trainingPanel_ = new TrainingPanel(doc_);
    auto dock = [this](const QString& title, const char* name, QWidget* w) {
        auto* d = new QDockWidget(title, this);
        d->setObjectName(QLatin1String(name));
        d->setWidget(w);
        d->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                       QDockWidget::DockWidgetClosable);
        return d;
    };
    modelDock_ = dock(tr("Model"), "modelDock", editor_);
    dataDock_ = dock(tr("Data"), "dataDock", new PaneScrollArea(dataPanel_));
    trainingDock_ = dock(tr("Training"), "trainingDock", new PaneScrollArea(trainingPanel_));
    applyFieldHelp(dataPanel_);
    applyFieldHelp(trainingPanel_);
    addDockWidget(Qt::LeftDockWidgetArea, modelDock_);
    addDockWidget(Qt::RightDockWidgetArea, dataDock_);
    addDockWidget(Qt::RightDockWidgetArea, trainingDock_);
    connect(dataPanel_, &DataPanel::priceFileInspected, this, [this](bool ok, const QString& m) {
        if (!ok) statusBar()->showMessage(tr("Import failed: %1").arg(m), 8000);
    });
    connect(dataPanel_, &DataPanel::problemChanged, this, &MainWindow::updateRunActions);
}

QSize MainWindow::defaultSize(const QSize& available) {
    const QSize frame(16, 48);  // a window manager's borders and title bar, generously
    if (!available.isValid()) return {1600, 960};
    return QSize(1600, 960).boundedTo(available - frame);
}

void MainWindow::fitTabsToCurrentPage() {
    // A tab widget is as wide as its widest page; the Comparison and Runs pages (shown without
    // the docks) would otherwise set the Experiment page's minimum width, docks included.
    for (int i = 0; i < tabs_->count(); ++i) {
        const auto policy =
            i == tabs_->currentIndex() ? QSizePolicy::Preferred : QSizePolicy::Ignored;
        tabs_->widget(i)->setSizePolicy(policy, policy);
    }
}

void MainWindow::applyDefaultLayout() {
    const int w = width();
    const bool compact = w < 1600;
    if (compact) {
        tabifyDockWidget(dataDock_, trainingDock_);
        dataDock_->raise();
    } else {
        splitDockWidget(dataDock_, trainingDock_, Qt::Vertical);
    }
    resizeDocks({modelDock_}, {compact ? 300 : 440}, Qt::Horizontal);
    resizeDocks({dataDock_}, {compact ? 350 : 380}, Qt::Horizontal);
    if (!compact) resizeDocks({dataDock_, trainingDock_}, {500, 480}, Qt::Vertical);
    if (auto* split = findChild<QSplitter*>(QStringLiteral("centralSplitter")))
        split->setSizes({compact ? 300 : 400, compact ? 380 : 520});
    if (auto* split = findChild<QSplitter*>(QStringLiteral("lowerSplitter")))
        split->setSizes({compact ? 520 : 760, compact ? 260 : 320});
}

void MainWindow::createMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(newAct_);
    file->addAction(openAct_);
    QAction* openData = file->addAction(tr("Open &Data…"));
    openData->setObjectName(QStringLiteral("openDataAction"));
    openData->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    openData->setStatusTip(tr("Use a price file (MT5, MT4 or generic OHLCV CSV) as the data"));
    connect(openData, &QAction::triggered, dataPanel_, &DataPanel::browse);
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    file->addSeparator();
    file->addAction(saveAct_);
    file->addAction(saveAsAct_);
    file->addSeparator();
    QAction* csv = file->addAction(tr("Export Metrics as &CSV…"));
    QAction* png = file->addAction(tr("Export Charts as &PNG…"));
    connect(csv, &QAction::triggered, charts_, &MetricCharts::exportCsvDialog);
    connect(png, &QAction::triggered, charts_, &MetricCharts::exportPngDialog);
    file->addAction(exportWeightsAct_);
    file->addAction(modelActions_->exportAction());
    QMenu* exportMenu = file->addMenu(tr("E&xport"));
    exportMenu->addAction(exportOnnxAct_);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"));
    quit->setShortcut(QKeySequence::Quit);
    connect(quit, &QAction::triggered, this, &QWidget::close);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    edit->addAction(undoAct_);
    edit->addAction(redoAct_);

    QMenu* model = menuBar()->addMenu(tr("&Model"));
    QMenu* add = model->addMenu(tr("&Add Layer"));
    for (QAction* a : editor_->palette()->actions()) add->addAction(a);
    presetMenu_ = model->addMenu(tr("&Presets"));
    rebuildPresetMenu();
    model->addSeparator();
    loadWeightsAct_ = model->addAction(tr("&Load Weights…"));
    loadWeightsAct_->setToolTip(
        tr("Load trained weights (safetensors) into this model; Train "
           "then offers to continue from them"));
    connect(loadWeightsAct_, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Load weights"), QString(), tr("safetensors (*.safetensors);;All files (*)"));
        if (!path.isEmpty()) loadWeights(path);
    });

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    run->addAction(trainAct_);
    run->addAction(pauseAct_);
    run->addAction(stopAct_);
    run->addAction(modelActions_->predictAction());
    run->addSeparator();
    QAction* compare = run->addAction(tr("&Compare Experiments"));
    compare->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_K));
    compare->setToolTip(tr("Train several experiments side by side (Comparison tab)"));
    connect(compare, &QAction::triggered, this, [this] { showComparison(); });
    run->addAction(comparisonView_->trainAllAction());
    run->addAction(comparisonView_->stopAllAction());
    run->addAction(tr("Open Comparison Set…"), comparisonView_, &ComparisonView::openSetDialog);
    run->addAction(tr("Save Comparison Set…"), comparisonView_, &ComparisonView::saveSetDialog);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(modelDock_->toggleViewAction());
    view->addAction(dataDock_->toggleViewAction());
    view->addAction(trainingDock_->toggleViewAction());
    addHelpMenu(this);
    rebuildRecentMenu();
}

void MainWindow::createStatusBar() {
    stateLabel_ = new QLabel(tr("Ready"));
    stateLabel_->setObjectName(QStringLiteral("runStateLabel"));
    // Its text (a run's end: "Finished: stopped early at epoch 7, best epoch 2 (…)") is clipped
    // in a narrow window rather than setting the window's minimum width.
    stateLabel_->setMinimumWidth(60);
    epochLabel_ = new QLabel;
    epochLabel_->setObjectName(QStringLiteral("epochLabel"));
    speedLabel_ = new QLabel;
    etaLabel_ = new QLabel;
    deviceLabel_ = new QLabel;
    deviceLabel_->setObjectName(QStringLiteral("deviceLabel"));
    deviceLabel_->setMaximumWidth(240);  // a long OpenCL device name must not widen the window
    progress_ = new QProgressBar;
    progress_->setObjectName(QStringLiteral("epochProgress"));
    progress_->setRange(0, 1000);
    progress_->setValue(0);
    progress_->setMaximumWidth(260);
    progress_->setTextVisible(true);
    progress_->setFormat(tr("epoch %p %"));
    progress_->setToolTip(tr("Progress of the current epoch over the training samples"));
    statusBar()->addWidget(stateLabel_);
    statusBar()->addPermanentWidget(epochLabel_);
    statusBar()->addPermanentWidget(speedLabel_);
    statusBar()->addPermanentWidget(etaLabel_);
    statusBar()->addPermanentWidget(deviceLabel_);
    statusBar()->addPermanentWidget(progress_);
    deviceLabel_->setText(trainingPanel_->devicePicker()->labelFor(
        QString::fromStdString(doc_->experiment().training.device)));
    connect(doc_, &ExperimentDocument::trainingChanged, this, [this] {
        if (!controller_->isBusy())
            deviceLabel_->setText(trainingPanel_->devicePicker()->labelFor(
                QString::fromStdString(doc_->experiment().training.device)));
    });
}

void MainWindow::connectController() {
    connect(controller_, &TrainingController::stateChanged, this,
            [this](TrainingController::State s) {
                using S = TrainingController::State;
                // The last epoch's line goes with the state ("Paused · epoch 3 done, …"); a
                // run's end is said by runFinished, after this.
                const QString state = s == S::Running    ? tr("Training")
                                      : s == S::Paused   ? tr("Paused")
                                      : s == S::Stopping ? tr("Stopping…")
                                                         : tr("Ready");
                stateLabel_->setText(s == S::Idle || epochLine_.isEmpty()
                                         ? state
                                         : state + QStringLiteral(" · ") + epochLine_);
                // The state label is hidden under a temporary message: Paused and Stopping
                // must be seen at once.
                if (s == S::Paused || s == S::Stopping) statusBar()->clearMessage();
                updateRunActions();
            });
    connect(controller_, &TrainingController::runStarted, this, [this](const RunInfo& info) {
        priceChart_->runStarted(info);
        hasValidation_ = info.validationSamples > 0;
        const QString label = trainingPanel_->devicePicker()->labelFor(info.deviceId);
        deviceLabel_->setText(label == info.deviceId ? info.deviceName : label);
        epochLabel_->setText(tr("epoch %1/%2").arg(info.firstEpoch).arg(info.epochs));
        statusBar()->showMessage(tr("%1 · %2 parameters · %3 training / %4 validation samples")
                                     .arg(info.dataDescription)
                                     .arg(QLocale().toString(qulonglong(info.parameters)))
                                     .arg(info.trainSamples)
                                     .arg(info.validationSamples),
                                 10000);
    });
    connect(controller_, &TrainingController::progress, this, [this](const TrainingProgress& p) {
        epochLabel_->setText(tr("epoch %1/%2").arg(p.epoch).arg(p.epochs));
        speedLabel_->setText(
            tr("%1 samples/s").arg(QLocale().toString(p.samplesPerSecond, 'f', 0)));
        etaLabel_->setText(tr("ETA %1").arg(duration(p.runEtaSeconds)));
        progress_->setValue(p.total ? static_cast<int>(1000.0 * p.done / p.total) : 0);
    });
    connect(controller_, &TrainingController::epochFinished, this, [this](const EpochReport& r) {
        charts_->addEpoch(r, hasValidation_);
        priceChart_->epochFinished(r);
        showConfusion();
        updateStaleNote();
        haveWeights_ = true;
        updateWeightsActions();
        if (r.bestEpoch > 0) {
            const QString text = r.stoppedEarly ? tr("epoch %1: stopping early, best epoch %2")
                                                : tr("epoch %1 done, best epoch %2");
            epochLine_ = text.arg(r.epoch).arg(r.bestEpoch);
            // In the state label, which a temporary message would hide (then "Paused" was
            // never seen).
            stateLabel_->setText((controller_->state() == TrainingController::State::Paused
                                      ? tr("Paused")
                                      : tr("Training")) +
                                 QStringLiteral(" · ") + epochLine_);
        }
    });
    connect(controller_, &TrainingController::attentionReady, this,
            [this](const AttentionSnapshotPtr& s) {
                attention_->setSnapshot(s);
                updateStaleNote();
            });
    connect(controller_, &TrainingController::recordingWarning, this,
            &MainWindow::showRecordingWarning);
    connect(comparison_, &ComparisonController::recordingWarning, this,
            &MainWindow::showRecordingWarning);
    connect(comparison_, &ComparisonController::allFinished, runsView_, &RunsView::refresh);
    connect(runsView_, &RunsView::openExperimentRequested, this, [this](qint64 id) {
        if (const auto run = openRun(id))
            statusBar()->showMessage(tr("Opened the experiment of run #%1").arg(run->id), 8000);
    });
    connect(runsView_, &RunsView::openModelRequested, this, &MainWindow::openRunModel);
    connect(controller_, &TrainingController::runFinished, this,
            [this](RunEnd end, const QString& message) {
                runsView_->refresh();
                progress_->setValue(end == RunEnd::Completed ? 1000 : progress_->value());
                // A stopped or failed run's bar does not go on saying "epoch 90 %".
                progress_->setFormat(end == RunEnd::Completed ? tr("done")
                                     : end == RunEnd::Stopped ? tr("stopped")
                                                              : tr("failed"));
                etaLabel_->clear();
                epochLine_.clear();
                // What stays in the status bar after the messages have gone.
                const int last = charts_->reports().empty() ? 0 : charts_->reports().back().epoch;
                stateLabel_->setText(end == RunEnd::Failed ? tr("Failed at epoch %1").arg(last + 1)
                                     : end == RunEnd::Stopped
                                         ? (last > 0 ? tr("Stopped after epoch %1").arg(last)
                                                     : tr("Stopped before the first epoch"))
                                     : message.isEmpty() ? tr("Finished")
                                                         : tr("Finished: %1").arg(message));
                if (!attention_->snapshot())
                    attention_->clear(end == RunEnd::Failed || charts_->reports().empty()
                                          ? tr("No Score matrices: the run ended early.")
                                          : tr("This stack has no attention layer, so there are "
                                               "no Score matrices to show."));
                if (!charts_->reports().empty() && end != RunEnd::Failed) {
                    const Experiment& e = doc_->experiment();
                    trainedFor_ = {{"model", e.model}, {"data", e.data}};
                }
                if (end == RunEnd::Failed) {
                    lastError_ = message;
                    showError(tr("Training stopped"), message);
                } else {
                    QString text =
                        end == RunEnd::Completed ? tr("Training finished") : tr("Training stopped");
                    if (!message.isEmpty()) text += QStringLiteral(": ") + message;
                    statusBar()->showMessage(text, 15000);
                }
            });
    connect(controller_, &TrainingController::weightsLoaded, this,
            [this](bool ok, const QString& message) {
                const QString runModel = std::exchange(pendingRunModel_, QString());
                if (!ok) modelEpoch_ = 0;
                if (!ok)
                    return showError(runModel.isEmpty() ? tr("Load weights") : tr("Open model"),
                                     message);
                banner_->hide();  // an earlier failed load's error is no longer true
                const Experiment& e = doc_->experiment();
                trainedFor_ = {{"model", e.model}, {"data", e.data}};
                haveWeights_ = true;
                weightsFromFile_ = true;
                updateWeightsActions();
                if (!runModel.isEmpty()) {  // the run's curves stay; its heatmaps come now
                    showConfusion();        // of the opened model's epoch
                    attention_->showSample(attention_->sampleBox()->value());
                    statusBar()->showMessage(
                        tr("Opened %1: Predict…, Export Model and ONNX use it; Train continues "
                           "from it")
                            .arg(runModel),
                        15000);
                    return;
                }
                charts_->clear();
                confusion_->clear();
                modelEpoch_ = 0;
                statusBar()->showMessage(
                    tr("Loaded the weights of %1; Train continues from them").arg(message), 15000);
            });
    connect(controller_, &TrainingController::weightsSaved, this,
            [this](bool ok, const QString& message) {
                if (ok)
                    statusBar()->showMessage(tr("Weights saved to %1").arg(message), 6000);
                else
                    showError(tr("Export weights"), message);
            });
    connect(controller_, &TrainingController::onnxExported, this,
            [this](bool ok, const QString& message) {
                if (ok)
                    statusBar()->showMessage(tr("ONNX model written to %1").arg(message), 6000);
                else
                    showError(tr("Export ONNX"), message);
            });
}

void MainWindow::updateWeightsActions() {
    const QString why = tr("Train or load weights first");
    QAction* actions[] = {exportWeightsAct_, exportOnnxAct_, modelActions_->exportAction(),
                          modelActions_->predictAction()};
    for (QAction* a : actions) {
        a->setEnabled(haveWeights_);
        a->setStatusTip(haveWeights_ ? a->toolTip() : why);
    }
}

void MainWindow::showConfusion() {
    const auto& reports = charts_->reports();
    if (reports.empty()) return confusion_->clear();
    // The epoch whose weights are on show: an opened run model's, else the heatmaps' picker's
    // (the best epoch's or the latest).
    int epoch = modelEpoch_;
    if (epoch <= 0 && attention_->weightsBox()->currentIndex() == 1)
        epoch = reports.back().bestEpoch;
    const EpochReport* shown = &reports.back();
    for (const EpochReport& r : reports)
        if (r.epoch == epoch) shown = &r;
    confusion_->setReport(*shown, hasValidation_);
}

bool MainWindow::canContinue() const {
    const Experiment& e = doc_->experiment();
    return !trainedFor_.is_null() && trainedFor_["model"] == e.model &&
           trainedFor_["data"] == e.data;
}

void MainWindow::trainRequested() {
    if (!canContinue()) {
        startTraining();
        return;
    }
    // Loaded weights come without an optimizer state or epoch count: continuing them starts
    // a fresh optimizer at epoch 1 (and their current weights are their best).
    QMessageBox box(
        QMessageBox::Question, tr("Train"),
        weightsFromFile_
            ? tr("This model has weights loaded from a file. Continue training them (with a "
                 "fresh optimizer, counting epochs from 1: a file keeps no optimizer state) "
                 "or start over?")
            : tr("This model has trained weights. Continue training them (keeping the "
                 "optimizer state and the epoch numbering) or start over?"),
        QMessageBox::NoButton, this);
    QPushButton* current =
        box.addButton(weightsFromFile_ ? tr("Continue from loaded") : tr("Continue from current"),
                      QMessageBox::AcceptRole);
    QPushButton* best = nullptr;
    if (!weightsFromFile_) best = box.addButton(tr("Continue from best"), QMessageBox::AcceptRole);
    QPushButton* restart = box.addButton(tr("Restart"), QMessageBox::DestructiveRole);
    box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(current);
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
    controller_->loadWeights(doc_->experiment(), path);
}

bool MainWindow::startTraining(int epochs, StartMode mode) {
    updateRunActions();
    if (!trainAct_->isEnabled() || controller_->isBusy()) return false;
    banner_->hide();
    lastError_.clear();
    if (mode == StartMode::Restart) {
        charts_->clear();  // a continued run goes on numbering its epochs on the same charts
        trainedFor_ = nullptr;
        haveWeights_ = false;  // a fresh network: none until its first epoch
        updateWeightsActions();
    }
    weightsFromFile_ = false;  // continued, they have an optimizer state and epochs
    modelEpoch_ = 0;
    epochLine_.clear();
    progress_->setFormat(tr("epoch %p %"));
    confusion_->clear();
    attention_->clear(tr("Waiting for the first epoch…"));
    progress_->setValue(0);
    speedLabel_->clear();
    etaLabel_->clear();
    resultsOf_ = resultsKey(doc_->experiment());
    updateStaleNote();
    RecordingOptions recording = recording_;
    recording.experimentFile = doc_->filePath().toStdString();
    controller_->setRecording(recording);
    const bool ok = controller_->start(doc_->experiment(), epochs, mode);
    updateRunActions();
    return ok;
}

void MainWindow::clearResults() {
    modelEpoch_ = 0;
    charts_->clear();
    confusion_->clear();
    attention_->clear(tr("Train a stack with an attention layer to see its Score matrices here."));
    if (!controller_->isBusy()) {
        priceChart_->clearRun();
        progress_->setValue(0);
        epochLabel_->clear();
        speedLabel_->clear();
        etaLabel_->clear();
    }
}

bool MainWindow::hasResults() const {
    return !charts_->reports().empty() || attention_->snapshot() != nullptr;
}

bool MainWindow::resultsAreStale() const {
    if (!hasResults() || resultsOf_.is_null()) return false;
    return resultsOf_ != resultsKey(doc_->experiment());
}

void MainWindow::updateStaleNote() {
    const bool stale = resultsAreStale();
    if (stale)
        staleNote_->setText(
            tr("These results come from the last run, which was made on other "
               "data or another layer stack than the experiment now shown. "
               "Train again for results of this experiment."));
    staleNote_->setVisible(stale);
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

void MainWindow::updateRunActions() {
    using S = TrainingController::State;
    const S s = controller_->state();
    // The stack's problem first, then the data's (a price file too short for one window).
    QString problem = stack_->problem();
    if (problem.isEmpty()) problem = dataPanel_->problem();
    const bool idle = s == S::Idle;
    trainAct_->setEnabled(idle && problem.isEmpty());
    trainAct_->setToolTip(problem.isEmpty() ? (idle ? tr("Train (F5)") : tr("A run is in progress"))
                                            : tr("Cannot train: %1").arg(problem));
    pauseAct_->setEnabled(s == S::Running || s == S::Paused);
    pauseAct_->setText(s == S::Paused ? tr("&Resume") : tr("&Pause"));
    pauseAct_->setIcon(
        style()->standardIcon(s == S::Paused ? QStyle::SP_MediaPlay : QStyle::SP_MediaPause));
    stopAct_->setEnabled(s == S::Running || s == S::Paused);
}

void MainWindow::updateTitle() {
    setWindowTitle(tr("%1[*] — nnwb").arg(doc_->displayName()));
    setWindowModified(doc_->isModified());
}

void MainWindow::rebuildRecentMenu() {
    recentMenu_->clear();
    const QStringList files = doc_->recentFiles();
    for (const QString& f : files) {
        QAction* a = recentMenu_->addAction(QFileInfo(f).fileName());
        a->setToolTip(f);
        a->setStatusTip(f);
        connect(a, &QAction::triggered, this, [this, f] {
            if (maybeSave()) openExperiment(f);
        });
    }
    recentMenu_->setEnabled(!files.isEmpty());
}

void MainWindow::rebuildPresetMenu() {
    presetMenu_->clear();
    const auto presets = listPresets();
    for (const PresetInfo& p : presets) {
        QAction* a = presetMenu_->addAction(p.name);
        a->setToolTip(p.description.isEmpty() ? p.path : p.description);
        a->setStatusTip(a->toolTip());
        const QString path = p.path, name = p.name;
        connect(a, &QAction::triggered, this, [this, path, name] {
            nlohmann::json layers;
            QString error;
            if (!loadPresetLayers(path, &layers, &error))
                showError(tr("Preset"), error);
            else
                stack_->replaceLayers(layers, tr("Load preset %1").arg(name));
        });
    }
    presetMenu_->setToolTipsVisible(true);
    if (presets.isEmpty()) presetMenu_->addAction(tr("(no presets found)"))->setEnabled(false);
}

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

void MainWindow::setRunStore(const QString& dbPath, bool enabled) {
    recording_.enabled = enabled;
    recording_.dbPath = dbPath.toStdString();
    RecordingOptions forComparison = recording_;
    comparison_->setRecording(forComparison);
    runsView_->setDatabase(enabled || !dbPath.isEmpty() ? runStorePath() : QString());
}

QString MainWindow::runStorePath() const {
    return QString::fromStdString(runsDbPath(recording_.dbPath));
}

void MainWindow::showRuns() {
    tabs_->setCurrentWidget(runsView_);
}

void MainWindow::showRecordingWarning(const QString& message) {
    statusBar()->showMessage(tr("This run is not recorded: the run store cannot be written"),
                             10000);
    if (recordingWarned_) return;  // one clear warning per session
    recordingWarned_ = true;
    showError(tr("Run history"), message);
}

void MainWindow::showLastRunOf(const QString& path) {
    const std::string db = runsDbPath(recording_.dbPath);
    if (path.isEmpty() || db.empty() || !QFileInfo::exists(QString::fromStdString(db))) return;
    try {
        RunStore store(db, false);
        const auto id = store.lastRunOfExperiment(QFileInfo(path).absoluteFilePath().toStdString());
        if (!id) return;
        const auto run = store.get(*id);
        if (!run) return;
        for (const StoredEpoch& e : run->epochs) charts_->addEpoch(e.report, run->hasValidation());
        if (!run->epochs.empty())
            confusion_->setReport(run->epochs.back().report, run->hasValidation());
        // The stored curves belong to the run's stack and data: marked stale if they differ.
        const nlohmann::json& stored = run->experiment;
        if (stored.contains("data") && stored.contains("model"))
            resultsOf_ = resultsKey(Experiment::fromJson(stored, "."));
        updateStaleNote();
        statusBar()->showMessage(tr("Curves of run #%1 (%2, %3)")
                                     .arg(run->id)
                                     .arg(QString::fromStdString(run->startedAt),
                                          QString::fromStdString(runStatusLabel(run->status))),
                                 10000);
    } catch (const std::exception&) {
        // the store cannot be read: the experiment opens without its last curves
    }
}

std::optional<StoredRun> MainWindow::openRun(qint64 id) {
    if (controller_->isBusy() || !maybeSave()) return std::nullopt;
    auto run = runsView_->load(id);
    if (!run) return std::nullopt;
    try {
        const std::string base = run->experimentFile.empty()
                                     ? std::string(".")
                                     : QFileInfo(QString::fromStdString(run->experimentFile))
                                           .absolutePath()
                                           .toStdString();
        doc_->reset(Experiment::fromJson(run->experiment, base));
    } catch (const std::exception& e) {
        showError(tr("Open run"), QString::fromStdString(e.what()));
        return std::nullopt;
    }
    clearResults();
    for (const StoredEpoch& e : run->epochs) charts_->addEpoch(e.report, run->hasValidation());
    if (!run->epochs.empty())
        confusion_->setReport(run->epochs.back().report, run->hasValidation());
    resultsOf_ = resultsKey(doc_->experiment());
    updateStaleNote();
    tabs_->setCurrentIndex(0);
    return run;
}

void MainWindow::openRunModel(qint64 id) {
    const auto run = openRun(id);
    if (!run) return;
    const StoredBundle* model = run->bundle("best");
    if (!model || !QFileInfo::exists(QString::fromStdString(model->path)))
        model = run->bundle("last");
    if (!model || !QFileInfo::exists(QString::fromStdString(model->path))) {
        showError(tr("Open model"),
                  tr("Run #%1 has no stored model file: it ended before an epoch completed, or "
                     "its files were deleted. Its experiment and curves are open.")
                      .arg(run->id));
        return;
    }
    modelEpoch_ = model->epoch;
    pendingRunModel_ = tr("the %1 model of run #%2 (epoch %3)")
                           .arg(QString::fromStdString(model->kind))
                           .arg(run->id)
                           .arg(model->epoch);
    controller_->loadWeights(doc_->experiment(), QString::fromStdString(model->path), model->epoch);
}

void MainWindow::newExperiment() {
    if (!maybeSave()) return;
    doc_->reset(builtinExperiment());
}

void MainWindow::openDialog() {
    const QString path = QFileDialog::getOpenFileName(
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
    const QString path = QFileDialog::getSaveFileName(
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

void MainWindow::showError(const QString& title, const QString& message) {
    banner_->setText(
        QStringLiteral("<b>%1.</b> %2")
            .arg(title.toHtmlEscaped(),
                 message.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>"))));
    banner_->show();
    statusBar()->showMessage(
        title + QStringLiteral(": ") + message.section(QLatin1Char('\n'), 0, 0), 10000);
    if (confirmDiscard_) {
        auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    }
}

void MainWindow::closeEvent(QCloseEvent* e) {
    const bool running = controller_->isBusy() || comparison_->isBusy();
    if (confirmDiscard_ && (running || doc_->isModified())) {
        // The run waits while the window asks (it trained on behind the dialogs); the unsaved
        // changes are asked about first, the run last: its Yes is the one that closes.
        const bool paused = controller_->state() == TrainingController::State::Running;
        if (paused) controller_->pause();
        auto keepGoing = [this, paused, e] {
            if (paused) controller_->resume();
            e->ignore();
        };
        if (!maybeSave()) return keepGoing();
        if (running) {
            const auto answer = QMessageBox::question(
                this, tr("Training in progress"),
                tr("A run is going. Stop it and close the window? (The weights of its "
                   "completed epochs are not saved unless you export them first.)"),
                QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel);
            if (answer != QMessageBox::Yes) return keepGoing();
        }
    }
    saveWindowState();
    controller_->shutdown();
    comparison_->shutdown();
    e->accept();
}

void MainWindow::saveWindowState() {
    QSettings s;
    s.setValue(QStringLiteral("mainWindow/geometry"), saveGeometry());
    s.setValue(QStringLiteral("mainWindow/state"), saveState());
}

bool MainWindow::restoreWindowState() {
    QSettings s;
    const QByteArray geometry = s.value(QStringLiteral("mainWindow/geometry")).toByteArray();
    const QByteArray state = s.value(QStringLiteral("mainWindow/state")).toByteArray();
    if (geometry.isEmpty() || state.isEmpty()) return false;
    return restoreGeometry(geometry) && restoreState(state);
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
