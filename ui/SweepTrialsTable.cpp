#include "ui/SweepTrialsTable.h"

#include <QHeaderView>

#include <cmath>

#include "app/sweep/SweepReadModel.h"

namespace nnwb {

namespace {

enum TrialColumn { kTrial, kState, kEpoch, kValue, kPrunedAt, kFirstParam };

// Sorts by the number behind its text (empty cells: NaN, last when ascending).
struct NumberItem : QTableWidgetItem {
    bool operator<(const QTableWidgetItem& o) const override {
        const double a = data(Qt::UserRole).toDouble(), b = o.data(Qt::UserRole).toDouble();
        if (std::isnan(a) || std::isnan(b)) return !std::isnan(a) && std::isnan(b);
        return a < b;
    }
};

QTableWidgetItem* numberItem(double v, const QString& text) {
    auto* item = new NumberItem;
    item->setData(Qt::DisplayRole, text);
    item->setData(Qt::UserRole, v);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

// The last part of a path ("batchSize"), with its layer for a layer field ("layers[0].heads").
QString shortName(const std::string& path) {
    const QString p = QString::fromStdString(path);
    const int layer = p.lastIndexOf("layers[");
    if (layer >= 0) return p.mid(layer);
    return p.mid(p.lastIndexOf('.') + 1);
}

QString jsonText(const nlohmann::json& v) {
    if (v.is_string()) return QString::fromStdString(v.get<std::string>());
    if (v.is_number_float()) return QString::number(v.get<double>(), 'g', 4);
    return QString::fromStdString(v.dump());
}

QColor stateColour(sweep::TrialState s) {
    switch (s) {
        case sweep::TrialState::Running:
            return QColor(30, 110, 200);
        case sweep::TrialState::Complete:
            return QColor(20, 130, 40);
        case sweep::TrialState::Pruned:
            return QColor(130, 130, 130);
        case sweep::TrialState::Failed:
            return QColor(190, 30, 30);
        default:
            return QColor(90, 90, 90);
    }
}

}  // namespace

SweepTrialsTable::SweepTrialsTable(QWidget* parent) : QTableWidget(parent) {
    setObjectName(QStringLiteral("sweepTrials"));
    setSelectionBehavior(SelectRows);
    setSelectionMode(SingleSelection);
    setEditTriggers(NoEditTriggers);
    verticalHeader()->hide();
    horizontalHeader()->setStretchLastSection(true);
    setToolTip(tr("Double-click a trial to open it as a run (experiment, curves, model)"));
    connect(this, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        if (const qint64 run = runOfRow(row); run > 0) Q_EMIT openRunRequested(run);
    });
}

void SweepTrialsTable::setSnapshot(const SweepSnapshot& s) {
    const int keep = selectedTrial();
    setSortingEnabled(false);
    QStringList headers = {tr("Trial"), tr("State"), tr("Epoch"),
                           QString::fromStdString(s.objective), tr("Pruned at")};
    for (const std::string& p : s.parameters) headers << shortName(p);
    headers << tr("Run");
    setColumnCount(headers.size());
    setHorizontalHeaderLabels(headers);
    for (size_t p = 0; p < s.parameters.size(); ++p)
        horizontalHeaderItem(kFirstParam + int(p))
            ->setToolTip(QString::fromStdString(s.parameters[p]));
    setRowCount(int(s.trials.size()));
    for (int r = 0; r < int(s.trials.size()); ++r) {
        const TrialRow& t = s.trials[size_t(r)];
        setItem(r, kTrial, numberItem(t.number, QString::number(t.number)));
        auto* state = new QTableWidgetItem(QString::fromUtf8(sweep::trialStateName(t.state)));
        state->setForeground(stateColour(t.state));
        if (!t.error.empty()) state->setToolTip(QString::fromStdString(t.error));
        setItem(r, kState, state);
        setItem(r, kEpoch, numberItem(t.epochsDone, QString::number(t.epochsDone)));
        const double v = t.value.value_or(qQNaN());
        // The value as sweep show writes it (SweepReadModel.h).
        setItem(r, kValue,
                numberItem(v, t.value ? QString::fromStdString(sweepValueText(v)) : QString()));
        setItem(r, kPrunedAt,
                numberItem(t.prunedAt.value_or(0),
                           t.prunedAt ? QString::number(*t.prunedAt) : QString()));
        for (size_t p = 0; p < s.parameters.size(); ++p) {
            const auto it = t.params.find(s.parameters[p]);
            setItem(r, kFirstParam + int(p),
                    new QTableWidgetItem(it == t.params.end() ? QString() : jsonText(*it)));
        }
        auto* run = numberItem(double(t.runId), t.runId ? QString("#%1").arg(t.runId) : QString());
        run->setData(Qt::UserRole + 1, qint64(t.runId));
        setItem(r, columnCount() - 1, run);
    }
    setSortingEnabled(true);
    resizeColumnsToContents();
    if (keep >= 0) selectTrial(keep);
}

void SweepTrialsTable::setFilter(const std::set<int>& numbers, bool all) {
    for (int r = 0; r < rowCount(); ++r) {
        const int n = item(r, kTrial) ? item(r, kTrial)->data(Qt::UserRole).toInt() : -1;
        setRowHidden(r, !all && numbers.count(n) == 0);
    }
}

int SweepTrialsTable::shownRows() const {
    int n = 0;
    for (int r = 0; r < rowCount(); ++r) n += !isRowHidden(r);
    return n;
}

int SweepTrialsTable::selectedTrial() const {
    const auto rows = selectionModel() ? selectionModel()->selectedRows() : QModelIndexList{};
    if (rows.isEmpty() || !item(rows.first().row(), kTrial)) return -1;
    return item(rows.first().row(), kTrial)->data(Qt::UserRole).toInt();
}

qint64 SweepTrialsTable::runOfRow(int row) const {
    const QTableWidgetItem* run = item(row, columnCount() - 1);
    return run ? run->data(Qt::UserRole + 1).toLongLong() : 0;
}

qint64 SweepTrialsTable::selectedRun() const {
    const auto rows = selectionModel() ? selectionModel()->selectedRows() : QModelIndexList{};
    return rows.isEmpty() ? 0 : runOfRow(rows.first().row());
}

void SweepTrialsTable::selectTrial(int number) {
    for (int r = 0; r < rowCount(); ++r)
        if (item(r, kTrial) && item(r, kTrial)->data(Qt::UserRole).toInt() == number) {
            selectRow(r);
            return;
        }
}

}  // namespace nnwb
