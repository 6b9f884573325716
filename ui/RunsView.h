// The Runs tab: every run of the run store in a sortable, filterable table (the filter syntax
// of `nnwb-cli runs list`); selecting runs overlays their curves on the comparison charts (tab
// Curves) and their figures in the comparison summary table beside the current run's details
// and note (tab Figures and note; the note editable, as are name and tags in the table); Open
// Experiment, Open Model (the run's stored best model into the window for Predict, export and
// heatmaps), Export CSV and Delete (with its files, after confirmation). Only shows: the store is
// read and edited by a RunHistory of app/core (on its own thread), whose answers come back to this
// view. GUI thread only.
#pragma once

#include <vector>

#include <QWidget>

#include "app/compare/RunRecord.h"
#include "app/runs/StoredRun.h"

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;
class QVBoxLayout;

namespace nnwb {

class ComparisonChart;
class ComparisonSummaryTable;
class EnsembleMembersTable;
class RunHistory;
class RunsTableModel;

class RunsView : public QWidget {
    Q_OBJECT
public:
    RunsView(RunHistory* history, QWidget* parent = nullptr);
    ~RunsView() override;

    // The database shown (a path; no file yet is an empty list). Refreshes.
    void setDatabase(const QString& path);
    QString database() const;
    void setConfirmDelete(bool on) { confirmDelete_ = on; }

    QTableView* table() const { return table_; }
    QLineEdit* filterEdit() const { return filter_; }
    RunsTableModel* model() const { return model_; }
    ComparisonChart* chart(int i) const { return charts_[i]; }
    ComparisonSummaryTable* summary() const { return summary_; }
    // The selected ensemble run against its best and median member (hidden for other runs).
    EnsembleMembersTable* ensembleMembers() const { return ensembleMembers_; }
    // Runs shown (after the filter) and the ids selected, in table order.
    int shownCount() const;
    std::vector<int64_t> selectedIds() const;
    // Selects these runs (as a user's ctrl-click would; runs not listed yet once they are).
    void selectIds(const std::vector<int64_t>& ids);

public Q_SLOTS:
    // Lists the runs again (the answer comes later, from the RunHistory).
    void refresh();
    void deleteSelected();
    void exportCsvDialog();

Q_SIGNALS:
    void openExperimentRequested(qint64 id);
    void openModelRequested(qint64 id);
    void problem(const QString& message);  // the store could not be read or written

private:
    // The filter, the run count, the buttons (a row) and the error line under them.
    void createButtonRow(QVBoxLayout* layout);
    void createCharts(QTabWidget* tabs);  // the three comparison charts, side by side
    void createSide(QWidget* parent);     // the current run's details and note
    void connectWidgets();
    void applyFilter();
    void selectionChanged();
    void showSelected(const std::vector<StoredRun>& runs);  // curves, summary, details
    // null: none selected; memberSeeds: the seeds of its member runs when it is an ensemble.
    void showDetails(const StoredRun* run, const std::vector<uint64_t>& memberSeeds = {});
    void saveNote();
    void storeMeta(const StoredRun& run);  // name, tags, note
    void report(const QString& message);

    RunHistory* history_;
    std::vector<StoredRun> all_;
    std::vector<int64_t> wanted_;  // selected before they were listed
    quint64 selection_ = 0;        // counts selection changes; a late load checks it
    bool confirmDelete_ = true;
    int64_t noteRun_ = 0;  // the run whose note is in the editor

    QLineEdit* filter_ = nullptr;
    QLabel* count_ = nullptr;
    QLabel* status_ = nullptr;
    QTableView* table_ = nullptr;
    RunsTableModel* model_ = nullptr;
    QSortFilterProxyModel* proxy_ = nullptr;
    ComparisonChart* charts_[3] = {};
    ComparisonSummaryTable* summary_ = nullptr;
    QLabel* details_ = nullptr;
    EnsembleMembersTable* ensembleMembers_ = nullptr;
    QPlainTextEdit* note_ = nullptr;
    QPushButton* saveNote_ = nullptr;
    QPushButton* openExperiment_ = nullptr;
    QPushButton* openModel_ = nullptr;
    QPushButton* exportCsv_ = nullptr;
    QPushButton* delete_ = nullptr;
};

// A stored run as a comparison run record (for the comparison charts and summary table).
RunRecord runRecordOf(const StoredRun& run);

}  // namespace nnwb
