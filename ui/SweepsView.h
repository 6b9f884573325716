// The Sweeps tab: a spec (the form for the common case, or the JSON itself) with Start, Stop
// and Resume; the store's sweeps; the shown sweep's live trials table, learning curves,
// parallel coordinates (brushing filters the table and curves), parameter importance, Pareto
// front and overfitting (PBO, docs/overfitting.md); a trial opens as a run in one click
// (openRunRequested). Only shows: the sweep runs and the store is read by a SweepPresenter of
// app/core. GUI thread only.
#pragma once

#include <functional>

#include <QWidget>

#include <nlohmann/json.hpp>

class QLabel;
class QPushButton;
class QLineEdit;
class QTabWidget;

namespace nnwb {

class ParallelCoordinates;
class SweepCurvesChart;
class SweepImportanceChart;
class SweepList;
class SweepOverfittingChart;
class SweepParetoChart;
class SweepPresenter;
class SweepSpecEditor;
class SweepSpecForm;
class SweepTrialsTable;
struct SweepSnapshot;

class SweepsView : public QWidget {
    Q_OBJECT
public:
    SweepsView(SweepPresenter* presenter, QWidget* parent = nullptr);

    // Where the form takes its fields from (the window's experiment) and what its spec names
    // as the experiment (a file; the window saves a copy of an unsaved experiment).
    void setExperimentSource(std::function<nlohmann::json()> experiment,
                             std::function<QString()> reference);

    SweepPresenter* presenter() const { return presenter_; }
    SweepSpecForm* form() const { return form_; }
    SweepSpecEditor* editor() const { return editor_; }
    SweepList* sweepList() const { return list_; }
    SweepTrialsTable* trials() const { return trials_; }
    SweepCurvesChart* curves() const { return curves_; }
    ParallelCoordinates* parallel() const { return parallel_; }
    SweepImportanceChart* importance() const { return importance_; }
    SweepParetoChart* pareto() const { return pareto_; }
    SweepOverfittingChart* overfitting() const { return overfitting_; }
    QTabWidget* chartTabs() const { return charts_; }
    QTabWidget* specTabs() const { return specTabs_; }
    QPushButton* startButton() const { return start_; }
    QPushButton* stopButton() const { return stop_; }
    QPushButton* resumeButton() const { return resume_; }
    QPushButton* importButton() const { return import_; }
    QLabel* importNote() const { return importNote_; }
    QPushButton* openTrialButton() const { return openTrial_; }
    QLineEdit* slotsField() const { return slots_; }
    QLabel* summary() const { return summary_; }
    QLabel* filterNote() const { return filterNote_; }  // "7 of 24 trials: brushed …"

public Q_SLOTS:
    void refresh();        // the sweep list again, and the form's fields
    void refreshFields();  // the form's fields (the window's experiment changed)
    void writeSpec();      // the form into the spec text (and checked)
    void startSweep();     // the spec text as it is (the form's, when the Form page is shown)
    void resumeSelected();
    void importBundle();

Q_SIGNALS:
    void openRunRequested(qint64 runId);

private:
    QWidget* createSpecSide();
    QWidget* createResultSide();
    void connectPresenter();
    void showSnapshot(const SweepSnapshot& s);
    void reopen(qint64 id);
    void applyFilter();
    void updateButtons();

    SweepPresenter* presenter_;
    std::function<nlohmann::json()> experiment_;
    std::function<QString()> reference_;
    QTabWidget* specTabs_ = nullptr;
    SweepSpecForm* form_ = nullptr;
    SweepSpecEditor* editor_ = nullptr;
    SweepList* list_ = nullptr;
    SweepTrialsTable* trials_ = nullptr;
    SweepCurvesChart* curves_ = nullptr;
    ParallelCoordinates* parallel_ = nullptr;
    SweepImportanceChart* importance_ = nullptr;
    SweepParetoChart* pareto_ = nullptr;
    SweepOverfittingChart* overfitting_ = nullptr;
    QTabWidget* charts_ = nullptr;
    QPushButton* start_ = nullptr;
    QPushButton* stop_ = nullptr;
    QPushButton* resume_ = nullptr;
    QPushButton* import_ = nullptr;
    QLabel* importNote_ = nullptr;  // what the last import did
    QPushButton* openTrial_ = nullptr;
    QLineEdit* slots_ = nullptr;
    QLabel* summary_ = nullptr;
    QLabel* filterNote_ = nullptr;
    qint64 specShownOf_ = 0;  // the sweep whose spec the editor got on reopening
};

}  // namespace nnwb
