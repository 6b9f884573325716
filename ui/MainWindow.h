// The workbench window: Model, Data and Training panes as docks around the live charts, the
// attention heatmaps and the confusion matrix (Experiment tab), a Comparison tab that trains
// several experiments side by side, a Runs tab of the run store and a Sweeps tab that runs
// sweeps; File/Edit/Model/Run menus with shortcuts; Train / Pause / Stop driving a
// TrainingController; window state, recent files and the last experiment kept in QSettings.
// Closing during training stops the worker cleanly. The run's state is a RunPresenter's, the
// run store a RunHistory's and sweeps a SweepPresenter's (app/core); the window lays out and
// shows. GUI thread.
#pragma once

#include <optional>

#include <QMainWindow>

#include "app/core/MetaTypes.h"
#include "app/core/TrainingController.h"
#include "app/runs/StoredRun.h"

class QAction;
class QLabel;
class QTabWidget;

namespace nnwb {

class AttentionView;
class ComparisonController;
class ComparisonView;
class ConfusionTable;
class ExportActions;
class ModelActions;
class PriceChartPane;
class ReportExport;
class TradingPresenter;
class TradingTab;
class WalkForwardPresenter;
class WalkForwardView;
class DataPanel;
class ExperimentDocument;
class LayerStackEditor;
class LayerStackModel;
class MetricCharts;
class ResultNotes;
class RunHistory;
class RunPresenter;
class RunStatusBar;
class RunsView;
class SweepPresenter;
class SweepsView;
class TrainingPanel;
class WindowActions;
class WindowMenus;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    ExperimentDocument* document() const { return doc_; }
    LayerStackModel* stackModel() const { return stack_; }
    TrainingController* controller() const { return controller_; }
    LayerStackEditor* layerEditor() const { return editor_; }
    DataPanel* dataPanel() const { return dataPanel_; }
    TrainingPanel* trainingPanel() const { return trainingPanel_; }
    MetricCharts* charts() const { return charts_; }
    AttentionView* attentionView() const { return attention_; }
    ConfusionTable* confusionTable() const { return confusion_; }
    ComparisonController* comparison() const { return comparison_; }
    ComparisonView* comparisonView() const { return comparisonView_; }
    // The Price Chart tab above the attention view, and File > Export Model / Run > Predict.
    PriceChartPane* priceChartPane() const { return priceChart_; }
    TradingPresenter* tradingPresenter() const { return trading_; }
    // The Trading tab (verdict, equity and drawdown, monthly returns, trades, folds).
    TradingTab* tradingTab() const { return tradingTab_; }
    // The Walk-Forward tab (fold table, stitched figures) and what it shows.
    WalkForwardPresenter* walkForwardPresenter() const { return walkForward_; }
    WalkForwardView* walkForwardView() const { return walkForwardView_; }
    ModelActions* modelActions() const { return modelActions_; }
    // File > Export Report (the tear sheet of what the window shows, HTML or PDF).
    ReportExport* reportExport() const { return reports_; }
    void showPriceChart();
    // Brings the Comparison tab (or back the Experiment tab) to the front.
    void showComparison(bool on = true);
    QAction* trainAction() const;
    QAction* pauseAction() const;
    QAction* stopAction() const;
    QAction* undoAction() const;
    QAction* redoAction() const;
    RunPresenter* presenter() const { return presenter_; }
    RunHistory* runHistory() const { return history_; }
    // The message of the last run that failed ("" if none).
    QString lastError() const { return lastError_; }
    // Results (charts, confusion matrix, heatmaps) are on show, and they come from a run made
    // on other data or another stack than the document's now (then a note above them says so).
    bool hasResults() const;
    bool resultsAreStale() const;
    QLabel* staleNote() const;

    // Where runs are recorded: `dbPath` empty means the default ($NNWB_RUNS_DB, XDG data
    // folder); `enabled` false records nothing (--no-record).
    void setRunsDatabase(const QString& dbPath, bool enabled);
    QString runsDatabasePath() const;
    RunsView* runsView() const { return runsView_; }
    SweepsView* sweepsView() const { return sweepsView_; }
    SweepPresenter* sweeps() const { return sweeps_; }
    // Brings the Sweeps tab to the front.
    void showSweeps();
    // Brings the Runs tab to the front.
    void showRuns();

    // Ask before discarding unsaved changes on close/new/open (off for scripted runs, tests).
    void setConfirmDiscard(bool on) { confirmDiscard_ = on; }
    bool openExperiment(const QString& path);
    // File > Open and drops: an experiment (JSON) replaces the document, a price file becomes
    // its data. True when the file was taken (a price file is then read in the background).
    bool openFile(const QString& path);
    static bool isExperimentFile(const QString& path);
    // Starts training a copy of the document; epochs > 0 overrides the experiment's count.
    // Continue modes keep the trained network, its optimizer state and the charts' epoch
    // numbering (epochs more epochs); Restart starts over.
    bool startTraining(int epochs = 0, StartMode mode = StartMode::Restart);
    // The Train action: when this model has trained (or loaded) weights, asks whether to
    // continue from the current or the best epoch's weights, or to restart.
    void trainRequested();
    // There are trained or loaded weights that the document's experiment can continue (the
    // engine's rule: same model, data, device and batch size).
    bool canContinue() const;
    // Loads a safetensors weights file into the document's network (Model > Load Weights…),
    // checked as nnwb-cli --load-weights does; the answer comes as weightsLoaded.
    void loadWeights(const QString& path);
    // Lays the panes out for the current window size (called on first show).
    void applyDefaultLayout();
    // The size the window opens at without saved settings: 1600×960, or less on a screen whose
    // `available` room (less a window manager's frame) is smaller, e.g. a 1280×720 screen.
    static QSize defaultSize(const QSize& available);
    // `wanted` (a --size) cut to what a screen with `available` room holds with a window
    // manager's frame (--size 1024x600 on a 1024×600 screen put the status bar under its edge).
    static QSize fitToScreen(const QSize& wanted, const QSize& available);
    // Restores geometry and dock layout from QSettings; false when nothing was saved.
    bool restoreWindowState();
    // Asks whether to save unsaved changes (when confirming is on); false: the user cancelled.
    bool maybeSave();
    // The error banner, the status bar's message and (when confirming is on) a message box.
    void showError(const QString& title, const QString& message);

public Q_SLOTS:
    void newExperiment();
    void openDialog();
    bool save();
    bool saveAs();
    void stopTraining();
    void togglePause();

protected:
    void closeEvent(QCloseEvent* e) override;
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;

private:
    // The close question for a run (`running`) and/or a sweep going: what stopping keeps.
    QString closeQuestion(bool running, bool sweeping) const;
    QWidget* createExperimentPage();
    void createDocks();
    void connectDocument();
    void connectViews();
    void connectController();
    void connectSweeps();
    void connectWalkForward();  // MainWindowWalkForward.cpp
    void tabChanged(int index);
    void fitTabsToCurrentPage();  // only the shown tab page sets the central minimum size
    // The Price Chart tab (candles, folds, equity curve and trading table) and the Walk-Forward
    // tab (fold table) get 70 % of the central height, the Metrics tab the default share,
    // until the user moves the split.
    void fitCentralSplitToUpperTab();
    void updateTitle();
    void updateRunActions();
    // The confusion matrix of the epoch on show (see showConfusion's comment).
    void showConfusion();
    void saveWindowState();
    void clearResults();  // charts, confusion, heatmaps, progress of the previous run
    QString attentionStartText() const;  // the heatmaps' text before a run of this stack
    void updateStaleNote();              // after an edit: are the results still the document's?
    void showRecordingWarning(const QString& message);
    void runStarted(const RunInfo& info);
    void epochFinished(const EpochReport& r);
    void runFinished(RunEnd end, const QString& message);
    void weightsLoaded(bool ok, const QString& message);
    // Asks the run store for run `id` (after maybeSave; nothing when busy or declined); its
    // experiment and curves then open, and with `model` its best model file (else its last).
    void openRun(qint64 id, bool model);
    // The experiment and curves of runs.front(), its member runs' thin when it is an ensemble
    // (RunHistory::load's runs).
    bool showStoredRun(const std::vector<StoredRun>& runs);
    void openRunModel(const StoredRun& run);
    // The confusion matrix becomes ensemble bundle `bundle`'s kept ensemble on its validation
    // part of price file `data` (measured in the background, KeptEnsembleJob), its caption
    // saying so when the file's SHA-256 is no longer `trainedSha256`, the run's.
    void showKeptEnsembleConfusion(const QString& bundle, const QString& data,
                                   const QString& trainedSha256);
    // Shows the curves of the newest stored run of the experiment file `path`, if any.
    void showLastRunOf(const QString& path);

    ExperimentDocument* doc_;
    LayerStackModel* stack_;
    TrainingController* controller_;
    ComparisonController* comparison_;
    RunPresenter* presenter_;
    RunHistory* history_;
    ComparisonView* comparisonView_ = nullptr;
    RunsView* runsView_ = nullptr;
    SweepPresenter* sweeps_ = nullptr;
    SweepsView* sweepsView_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    bool docksShown_[3] = {true, true, true};   // while the Comparison tab hides them
    bool docksRaised_[3] = {true, true, true};  // and which of them were on screen (raised)
    bool docksHidden_ = false;                  // the Comparison, Runs or Sweeps tab is shown
    bool centralSplitMoved_ = false;            // the user moved the central splitter
    LayerStackEditor* editor_ = nullptr;
    DataPanel* dataPanel_ = nullptr;
    TrainingPanel* trainingPanel_ = nullptr;
    MetricCharts* charts_ = nullptr;
    QTabWidget* upperTabs_ = nullptr;  // Metrics | Price Chart | Trading | Walk-Forward
    PriceChartPane* priceChart_ = nullptr;
    TradingPresenter* trading_ = nullptr;  // the price chart's signals, traded
    TradingTab* tradingTab_ = nullptr;
    WalkForwardPresenter* walkForward_ = nullptr;
    WalkForwardView* walkForwardView_ = nullptr;
    ModelActions* modelActions_ = nullptr;  // Export Model…, Run > Predict…
    AttentionView* attention_ = nullptr;
    ConfusionTable* confusion_ = nullptr;
    QDockWidget* modelDock_ = nullptr;
    QDockWidget* dataDock_ = nullptr;
    QDockWidget* trainingDock_ = nullptr;
    ResultNotes* notes_ = nullptr;  // error banner, stale-results note
    WindowActions* actions_ = nullptr;
    ExportActions* exports_ = nullptr;
    ReportExport* reports_ = nullptr;
    WindowMenus* menus_ = nullptr;
    RunStatusBar* runStatus_ = nullptr;

    bool confirmDiscard_ = true;
    bool hasValidation_ = false;
    QString lastError_;
    QString pendingRunModel_;         // "the best model of run #3 (epoch 6)" while it loads
    quint64 documentGeneration_ = 0;  // counts replaced experiments; a late stored run checks it
};

}  // namespace nnwb
