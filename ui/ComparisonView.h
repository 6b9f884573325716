// The Comparison tab of the window: the runs of the comparison set (add the current
// experiment, a new one, a file or a preset; pick each run's device; remove), Train all /
// Stop all / Stop per run, the three metric charts with every run overlaid or (a picker) the
// attention heatmaps side by side, the summary table; opens and saves the set as one file. Drives a
// ComparisonController. GUI thread only.
#pragma once

#include <vector>

#include <QWidget>

class QAction;
class QCheckBox;
class QLabel;
class QMenu;
class QSpinBox;
class QSplitter;
class QComboBox;
class QStackedWidget;

namespace nnwb {

class ComparisonAttention;
class ComparisonChart;
class ComparisonController;
class ComparisonRunsTable;
class ComparisonSummaryTable;
class ExperimentDocument;

class ComparisonView : public QWidget {
    Q_OBJECT
public:
    ComparisonView(ComparisonController* controller, ExperimentDocument* document,
                   QWidget* parent = nullptr);

    ComparisonController* controller() const { return controller_; }
    ComparisonChart* chart(int metric) const { return charts_[metric]; }  // loss, missed, acc
    ComparisonRunsTable* runsTable() const { return runs_; }
    ComparisonSummaryTable* summaryTable() const { return summary_; }
    ComparisonAttention* attention() const { return attention_; }
    // What the upper part shows: 0 the curves, 1 the attention heatmaps.
    QComboBox* upperPicker() const { return upperPicker_; }
    QAction* trainAllAction() const { return trainAll_; }
    QAction* stopAllAction() const { return stopAll_; }
    QCheckBox* trainingToggle() const { return showTraining_; }
    QCheckBox* validationToggle() const { return showValidation_; }

    // Trains every run; epochs > 0 sets the epochs of the set first. False when busy or empty.
    bool trainAll(int epochs = 0);
    // Adds a run from an experiment file or a preset name ("mql5-fractal-5x8"); false with a
    // message on failure.
    bool addFromFileOrPreset(const QString& fileOrPreset, const QString& device, QString* error);
    // The colour of run i (the same in every chart, table and heatmap title).
    static QColor runColour(int run);

public Q_SLOTS:
    void openSetDialog();
    void saveSetDialog();

private:
    // The three charts with their training/validation switches, in `parent`.
    void createCharts(QWidget* parent);
    // The Add menu: the current experiment, a new one, files, presets
    void createAddMenu();
    // The check boxes, the runs table and the heatmaps to the charts and the controller
    void connectViews();
    // The comparison controller's signals: rebuilt rows, progress, curves, failures
    void connectController();
    void createToolBar();
    void rebuild();
    void refreshRun(int run);
    void refreshSummary();
    void updateActions();
    void showMessage(const QString& text, bool error);
    std::vector<QColor> colours() const;

    ComparisonController* controller_;
    ExperimentDocument* document_;
    ComparisonRunsTable* runs_;
    ComparisonChart* charts_[3];
    ComparisonSummaryTable* summary_;
    QSplitter* split_;  // the charts over the summary and the heatmaps
    ComparisonAttention* attention_;
    QComboBox* upperPicker_;
    QStackedWidget* upper_;
    QCheckBox* showTraining_;
    QCheckBox* showValidation_;
    QSpinBox* epochs_;
    QLabel* message_;
    QWidget* toolBar_ = nullptr;
    QMenu* addMenu_ = nullptr;
    QAction* trainAll_ = nullptr;
    QAction* stopAll_ = nullptr;
    QAction* remove_ = nullptr;
    QAction* openSet_ = nullptr;
    QAction* saveSet_ = nullptr;
};

}  // namespace nnwb
