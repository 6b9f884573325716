#include "ui/RunsView.h"

#include <algorithm>

#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "app/core/QtText.h"
#include "app/core/RunHistory.h"
#include "model/FigureText.h"
#include "ui/ComparisonChart.h"
#include "ui/ComparisonSummaryTable.h"
#include "ui/ComparisonView.h"
#include "ui/EnsembleMembersTable.h"
#include "ui/EpochPoints.h"
#include "ui/FileDialogs.h"
#include "ui/RunsTableModel.h"
#include "ui/TableRows.h"

namespace nnwb {

namespace {

// An ensemble run's seeds, from its member runs: "1–3 (ensemble of 3)" when consecutive, else
// the list ("1, 5, 9 (ensemble of 3)"); the run's own seed is its first member's.
QString runsViewEnsembleSeeds(std::vector<uint64_t> seeds, int members) {
    std::sort(seeds.begin(), seeds.end());
    bool consecutive = seeds.size() > 1;
    for (size_t k = 1; k < seeds.size(); ++k)
        consecutive = consecutive && seeds[k] == seeds[k - 1] + 1;
    QString list;
    if (consecutive) {
        list = QStringLiteral("%1–%2 ").arg(seeds.front()).arg(seeds.back());
    } else {
        for (size_t k = 0; k < seeds.size(); ++k)
            list += QString::number(seeds[k]) + (k + 1 < seeds.size() ? ", " : " ");
    }
    return list + RunsView::tr("(ensemble of %1)").arg(members);
}

}  // namespace

RunRecord runRecordOf(const StoredRun& run) {
    RunRecord r;
    r.label = "#" + std::to_string(run.id) + " " + run.name;
    r.deviceId = run.deviceId;
    r.deviceName = run.deviceName;
    r.parameters = size_t(run.parameters);
    r.trainSamples = size_t(run.trainSamples);
    r.validationSamples = size_t(run.validationSamples);
    // Early stopping completes a run (its last epoch says so); "stopped" is the user's Stop.
    const bool early = run.status == runstatus::kStoppedEarly;
    r.status = run.status == runstatus::kCompleted || early ? RunStatus::Completed
               : run.status == runstatus::kFailed           ? RunStatus::Failed
               : run.status == runstatus::kRunning          ? RunStatus::Running
                                                            : RunStatus::Stopped;
    r.error = run.error;
    r.trading = run.trading;
    for (const StoredEpoch& e : run.epochs) r.epochs.push_back(e.report);
    if (early && !r.epochs.empty()) r.epochs.back().stoppedEarly = true;
    return r;
}

RunsView::RunsView(RunHistory* history, QWidget* parent) : QWidget(parent), history_(history) {
    setObjectName(QStringLiteral("runsView"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);

    createButtonRow(layout);

    auto* vsplit = new QSplitter(Qt::Vertical, this);
    model_ = new RunsTableModel(this);
    proxy_ = new QSortFilterProxyModel(this);
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(Qt::UserRole);
    table_ = new QTableView(vsplit);
    table_->setObjectName(QStringLiteral("runsTable"));
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(RunsTableModel::kId, Qt::DescendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    table_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setAlternatingRowColors(true);
    // One line a run: the style's 30 px rows left three runs in sight at 1280x720. Two rows at
    // the least (a 1024x600 screen).
    table_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    table_->setMinimumHeight(tableHeightForRows(table_, 2));

    // The curves and the figures in two tabs under the list: one above the other they left the
    // charts 111 px of plot at 1280x720 once the list had room for five runs.
    auto* lower = new QTabWidget(vsplit);
    lower->setObjectName(QStringLiteral("runsLowerTabs"));
    lower->setDocumentMode(true);
    createCharts(lower);
    auto* hsplit = new QSplitter(Qt::Horizontal, lower);
    summary_ = new ComparisonSummaryTable(hsplit);
    createSide(hsplit);
    hsplit->setStretchFactor(0, 3);
    hsplit->setStretchFactor(1, 2);
    lower->addTab(hsplit, tr("Figures and note"));
    // The list gets a third: five runs in sight at 1280x720 (a quarter showed three or four).
    vsplit->setStretchFactor(0, 1);
    vsplit->setStretchFactor(1, 2);
    vsplit->setSizes({1000, 2000});
    layout->addWidget(vsplit, 1);

    connectWidgets();
    selectionChanged();
}

void RunsView::createButtonRow(QVBoxLayout* layout) {
    auto* bar = new QHBoxLayout;
    filter_ = new QLineEdit(this);
    filter_->setObjectName(QStringLiteral("runsFilter"));
    filter_->setClearButtonEnabled(true);
    filter_->setPlaceholderText(
        tr("Filter: words, or key:value (name tag status device data source note id)"));
    filter_->setToolTip(
        tr("All words must match. key:value matches one field (name, tag, status, device, data, "
           "source, note, id, comparison); a bare word matches name, tags, note, data, device "
           "and status. Example: tag:baseline status:completed eurusd"));
    count_ = new QLabel(this);
    auto button = [this, bar](const QString& text, const QString& name) {
        auto* b = new QPushButton(text, this);
        b->setObjectName(name);
        bar->addWidget(b);
        return b;
    };
    bar->addWidget(filter_, 1);
    bar->addWidget(count_);
    auto* refresh = button(tr("Refresh"), QStringLiteral("runsRefresh"));
    openExperiment_ = button(tr("Open Experiment"), QStringLiteral("runsOpenExperiment"));
    openExperiment_->setToolTip(tr("Open the run's experiment, as it was trained, in the editor"));
    openModel_ = button(tr("Open Model"), QStringLiteral("runsOpenModel"));
    openModel_->setToolTip(
        tr("Open the run's experiment with its stored best model (the last "
           "one without a best): Predict…, Export Model, ONNX and the "
           "attention heatmaps then use those weights"));
    exportCsv_ = button(tr("Export CSV…"), QStringLiteral("runsExportCsv"));
    delete_ = button(tr("Delete…"), QStringLiteral("runsDelete"));
    layout->addLayout(bar);
    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("runsStatus"));
    status_->setWordWrap(true);
    status_->setStyleSheet(QStringLiteral("QLabel { color: #7a1010; }"));
    status_->hide();
    layout->addWidget(status_);
    connect(refresh, &QPushButton::clicked, this, &RunsView::refresh);
}

void RunsView::createCharts(QTabWidget* tabs) {
    auto* chartsBox = new QWidget(tabs);
    tabs->addTab(chartsBox, tr("Curves"));
    auto* chartsLayout = new QHBoxLayout(chartsBox);
    chartsLayout->setContentsMargins(0, 0, 0, 0);
    charts_[0] = new ComparisonChart(tr("Loss"), tr("mean loss per sample"), chartsBox);
    charts_[1] = new ComparisonChart(tr("Missed patterns"), tr("missed fractals (%)"), chartsBox);
    charts_[2] = new ComparisonChart(tr("Accuracy"), tr("signals on a fractal (%)"), chartsBox);
    const char* names[3] = {"runsLoss", "runsMissed", "runsAccuracy"};
    for (int i = 0; i < 3; ++i) {
        charts_[i]->setObjectName(QLatin1String(names[i]));
        charts_[i]->setPlaceholder(tr("Select runs in the list\nto plot their curves"));
        chartsLayout->addWidget(charts_[i]);
    }
    for (int i = 0; i < 3; ++i)
        connect(charts_[i], &ComparisonChart::runToggled, this, [this](int run, bool shown) {
            for (ComparisonChart* c : charts_) c->setRunVisible(run, shown);
        });
}

void RunsView::createSide(QWidget* parent) {
    auto* side = new QWidget(parent);
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(0, 0, 0, 0);
    details_ = new QLabel(side);
    details_->setObjectName(QStringLiteral("runsDetails"));
    details_->setWordWrap(true);
    details_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    details_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    note_ = new QPlainTextEdit(side);
    note_->setObjectName(QStringLiteral("runsNote"));
    note_->setPlaceholderText(tr("Note on this run"));
    saveNote_ = new QPushButton(tr("Save Note"), side);
    saveNote_->setObjectName(QStringLiteral("runsSaveNote"));
    // The details scroll: as a label of their own their dozen lines set the lower half's
    // minimum height, which squeezed the charts to a 60 px strip at 720 px (issue 24).
    auto* detailsScroll = new QScrollArea(side);
    detailsScroll->setWidgetResizable(true);
    detailsScroll->setFrameShape(QFrame::NoFrame);
    detailsScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    detailsScroll->setWidget(details_);
    details_->setContentsMargins(0, 0, 4, 0);
    sideLayout->addWidget(detailsScroll, 1);
    ensembleMembers_ = new EnsembleMembersTable(side);
    sideLayout->addWidget(ensembleMembers_);
    sideLayout->addWidget(note_, 1);
    sideLayout->addWidget(saveNote_, 0, Qt::AlignRight);
}

void RunsView::connectWidgets() {
    connect(filter_, &QLineEdit::textChanged, this, [this] { applyFilter(); });
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            [this] { selectionChanged(); });
    connect(model_, &RunsTableModel::metaEdited, this,
            [this](qint64 id, const QString& name, const QString& tags) {
                for (StoredRun& r : all_)
                    if (r.id == id) {
                        r.name = name.toStdString();
                        r.tags = tags.toStdString();
                        storeMeta(r);
                    }
                selectionChanged();
            });
    connect(saveNote_, &QPushButton::clicked, this, &RunsView::saveNote);
    connect(openExperiment_, &QPushButton::clicked, this, [this] {
        const auto ids = selectedIds();
        if (!ids.empty()) Q_EMIT openExperimentRequested(qlonglong(ids.front()));
    });
    connect(openModel_, &QPushButton::clicked, this, [this] {
        const auto ids = selectedIds();
        if (!ids.empty()) Q_EMIT openModelRequested(qlonglong(ids.front()));
    });
    connect(exportCsv_, &QPushButton::clicked, this, &RunsView::exportCsvDialog);
    connect(delete_, &QPushButton::clicked, this, &RunsView::deleteSelected);
}

RunsView::~RunsView() = default;

void RunsView::report(const QString& message) {
    status_->setText(message);
    status_->setVisible(!message.isEmpty());
    if (!message.isEmpty()) Q_EMIT problem(message);
}

void RunsView::storeMeta(const StoredRun& run) {
    history_->setMeta(run.id, run.name, run.tags, run.note, this, [this](const QString& error) {
        if (!error.isEmpty()) report(error);
    });
}

void RunsView::setDatabase(const QString& path) {
    if (path != history_->database()) history_->setDatabase(path);
    refresh();
}

QString RunsView::database() const {
    return history_->database();
}

void RunsView::refresh() {
    history_->list(this, [this](const std::vector<StoredRun>& runs, const QString& error) {
        // The selection (and runs asked for before they were listed) stays.
        std::vector<int64_t> keep = selectedIds();
        keep.insert(keep.end(), wanted_.begin(), wanted_.end());
        wanted_.clear();
        all_ = runs;
        status_->hide();
        if (!error.isEmpty()) report(error);
        applyFilter();
        selectIds(keep);
    });
}

void RunsView::applyFilter() {
    FilteredRuns shown = filterRuns(all_, filter_->text());
    filter_->setStyleSheet(
        shown.error.isEmpty() ? QString() : QStringLiteral("QLineEdit { background: #fde2e1; }"));
    filter_->setToolTip(shown.error);
    const std::vector<int64_t> keep = selectedIds();
    model_->setRuns(std::move(shown.runs));
    count_->setText(all_.empty() && database().isEmpty()
                        ? tr("no run store")
                        : tr("%1 of %2 runs").arg(model_->rowCount()).arg(all_.size()));
    table_->resizeColumnsToContents();
    selectIds(keep);
}

int RunsView::shownCount() const {
    return model_->rowCount();
}

std::vector<int64_t> RunsView::selectedIds() const {
    std::vector<int64_t> ids;
    if (!table_ || !table_->selectionModel()) return ids;
    QModelIndexList rows = table_->selectionModel()->selectedRows();
    std::sort(rows.begin(), rows.end(),
              [](const QModelIndex& a, const QModelIndex& b) { return a.row() < b.row(); });
    for (const QModelIndex& i : rows) ids.push_back(model_->run(proxy_->mapToSource(i).row()).id);
    return ids;
}

void RunsView::selectIds(const std::vector<int64_t>& ids) {
    QItemSelection sel;
    for (int64_t id : ids) {
        const int row = model_->rowOf(id);
        if (row < 0) {
            wanted_.push_back(id);  // selected once listed (a refresh still going)
            continue;
        }
        const QModelIndex i = proxy_->mapFromSource(model_->index(row, 0));
        sel.select(i, i.siblingAtColumn(RunsTableModel::kColumnCount - 1));
    }
    table_->selectionModel()->select(sel, QItemSelectionModel::ClearAndSelect);
    selectionChanged();
}

void RunsView::selectionChanged() {
    const std::vector<int64_t> ids = selectedIds();
    // The buttons and the note from the listed run at once; curves and details once loaded.
    const int row = ids.empty() ? -1 : model_->rowOf(ids.front());
    const StoredRun* first = row < 0 ? nullptr : &model_->run(row);
    const bool one = first != nullptr;
    openExperiment_->setEnabled(one);
    openModel_->setEnabled(one && first->epochsDone > 0);
    exportCsv_->setEnabled(one);
    delete_->setEnabled(!ids.empty());
    note_->setEnabled(one);
    saveNote_->setEnabled(one);
    noteRun_ = one ? first->id : 0;
    if (one)
        note_->setPlainText(q(first->note));
    else
        note_->clear();
    const quint64 generation = ++selection_;
    history_->load(ids, this,
                   [this, generation](const std::vector<StoredRun>& runs, const QString& error) {
                       if (generation != selection_) return;  // the selection moved on
                       if (!error.isEmpty()) report(error);
                       showSelected(runs);
                   });
}

void RunsView::showSelected(const std::vector<StoredRun>& runs) {
    // The selected runs, then the member runs of the selected ensembles (RunHistory::load):
    // members are drawn thin in their ensemble's colour and left out of the summary.
    std::vector<RunRecord> records;
    std::vector<int> ensembleOf;  // per record: the selected record it is a member of, or -1
    for (const StoredRun& run : runs) {
        int of = -1;
        for (size_t k = 0; k < records.size() && run.ensembleRun > 0; ++k)
            if (runs[k].id == run.ensembleRun) of = int(k);
        records.push_back(runRecordOf(run));
        ensembleOf.push_back(of);
    }
    QStringList names;
    std::vector<QColor> colours;
    for (size_t i = 0; i < records.size(); ++i) {
        names << q(records[i].label);
        colours.push_back(ensembleOf[i] >= 0 ? colours[size_t(ensembleOf[i])]
                                             : ComparisonView::runColour(int(i)));
    }
    for (ComparisonChart* c : charts_) c->setRuns(names, colours);
    std::vector<RunRecord> shown;
    std::vector<QColor> shownColours;
    for (size_t i = 0; i < records.size(); ++i) {
        const RunRecord& r = records[i];
        for (const EpochReport& e : r.epochs) addEpochPoints(charts_, int(i), e, r.hasValidation());
        if (ensembleOf[i] >= 0) {
            for (ComparisonChart* c : charts_) c->setRunThin(int(i));
            continue;
        }
        shown.push_back(r);
        shownColours.push_back(colours[i]);
    }
    summary_->setRecords(shown, shownColours);
    std::vector<uint64_t> memberSeeds;  // of the first selected run, if an ensemble
    std::vector<const StoredRun*> members;
    for (const StoredRun& run : runs)
        if (run.ensembleRun > 0 && run.ensembleRun == runs.front().id) {
            memberSeeds.push_back(run.seed);
            members.push_back(&run);
        }
    ensembleMembers_->showEnsemble(runs.empty() ? nullptr : &runs.front(), members);
    showDetails(runs.empty() ? nullptr : &runs.front(), memberSeeds);
}

void RunsView::showDetails(const StoredRun* run, const std::vector<uint64_t>& memberSeeds) {
    if (!run) {
        details_->setText(database().isEmpty()
                              ? tr("Runs are not recorded (--no-record).")
                              : tr("Select runs to compare them; the run store is %1.")
                                    .arg(database().toHtmlEscaped()));
        return;
    }
    const StoredRun& r = *run;
    QString html = QStringLiteral("<b>#%1 %2</b> — %3<br>")
                       .arg(r.id)
                       .arg(q(r.name).toHtmlEscaped())
                       .arg(q(runStatusLabel(r.status)));
    if (!r.error.empty()) html += q(r.error).toHtmlEscaped() + QStringLiteral("<br>");
    auto row = [&](const QString& k, const QString& v) {
        if (!v.isEmpty()) html += QStringLiteral("%1: %2<br>").arg(k, v.toHtmlEscaped());
    };
    row(tr("Started"), q(r.startedAt) + (r.endedAt.empty() ? QString() : " – " + q(r.endedAt)));
    row(tr("Experiment"),
        r.experimentFile.empty() ? tr("(unsaved; stored in full)") : q(r.experimentFile));
    row(tr("Data"), r.dataFile.empty() ? q(r.dataDescription) : q(r.dataFile));
    if (!r.dataFile.empty())
        row(tr("Data bars"),
            QStringLiteral("%1, %2 – %3, sha256 %4…")
                .arg(q(groupedCount(r.dataBars)))
                .arg(q(r.dataFirstBar), q(r.dataLastBar), q(r.dataSha256).left(16)));
    row(tr("Device"), q(r.deviceId) + " (" + q(r.deviceName) + ")");
    if (r.ensembleMembers > 0)  // its seed is its first member's: the members' say what it is
        row(tr("Seeds"), runsViewEnsembleSeeds(memberSeeds, r.ensembleMembers));
    else
        row(tr("Seed"), QString::number(r.seed));
    if (r.bestEpoch)
        row(tr("Best epoch"), QStringLiteral("%1 (%2)").arg(*r.bestEpoch).arg(q(r.monitor)));
    for (const StoredBundle& b : r.bundles)
        row(tr("Model (%1)").arg(q(b.kind)),
            QStringLiteral("%1, epoch %2").arg(QFileInfo(q(b.path)).fileName()).arg(b.epoch));
    row(tr("Source"), q(r.source) + QStringLiteral(", nnwb ") + q(r.appVersion));
    details_->setText(html);
}

void RunsView::saveNote() {
    if (noteRun_ == 0) return;
    for (StoredRun& r : all_) {
        if (r.id != noteRun_) continue;
        r.note = note_->toPlainText().toStdString();
        storeMeta(r);
    }
}

void RunsView::deleteSelected() {
    const std::vector<int64_t> ids = selectedIds();
    if (ids.empty()) return;
    if (confirmDelete_) {
        QStringList names;
        for (int64_t id : ids) names << QStringLiteral("#%1").arg(id);
        const auto answer = QMessageBox::question(
            this, tr("Delete runs"),
            tr("Delete %n run(s) (%1) with their epochs and model files? This cannot be undone.",
               nullptr, int(ids.size()))
                .arg(names.join(QStringLiteral(", "))),
            QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel);
        if (answer != QMessageBox::Yes) return;
    }
    history_->remove(ids, this, [this](const QString& error) {
        if (!error.isEmpty()) report(error);
    });
    refresh();  // asked after the delete: it lists what is left
}

void RunsView::exportCsvDialog() {
    const auto ids = selectedIds();
    if (ids.empty()) return;
    const QString path =
        saveFileName(this, tr("Export run as CSV"), QStringLiteral("run-%1.csv").arg(ids.front()),
                     tr("CSV (*.csv)"));
    if (path.isEmpty()) return;
    history_->exportCsv(ids.front(), path, this, [this](const QString& error) {
        if (!error.isEmpty()) report(error);
    });
}

}  // namespace nnwb
