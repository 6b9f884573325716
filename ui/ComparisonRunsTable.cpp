#include "ui/ComparisonRunsTable.h"

#include <QCheckBox>
#include <QFileInfo>
#include <QHeaderView>
#include <QProgressBar>
#include <QSignalBlocker>
#include <QStyle>
#include <QToolButton>

#include "model/FigureText.h"
#include "model/data/DataConfig.h"
#include "ui/DevicePicker.h"

namespace nnwb {

namespace {
QString statusText(const RunRecord& r) {
    QString s = QString::fromUtf8(r.statusText());
    if (r.status == RunStatus::Failed && !r.error.empty())
        s +=
            QStringLiteral(": ") + QString::fromStdString(r.error).section(QLatin1Char('\n'), 0, 0);
    return s;
}
// "1 bar", "20 bars", "1,024 samples".
QString countOf(int64_t n, const char* one, const char* many) {
    return ComparisonRunsTable::tr(n == 1 ? one : many)
        .arg(QString::fromStdString(groupedCount(n)));
}

// "EURUSD_H1_2017-2018.csv · window 20 bars" or "synthetic · 512 samples". The bars are the
// window's (bars per sample), not the file's: said so.
QString dataLabel(const Experiment& e) {
    const nlohmann::json& d = e.data;
    if (d.value("source", std::string()) == "synthetic")
        return ComparisonRunsTable::tr("synthetic · %1")
            .arg(countOf(d.value("samples", 0), QT_TR_NOOP("%1 sample"), QT_TR_NOOP("%1 samples")));
    const QString file = QString::fromStdString(d.value("file", std::string()));
    return ComparisonRunsTable::tr("%1 · window %2")
        .arg(QFileInfo(file).fileName())
        .arg(countOf(d.value("window", 0), QT_TR_NOOP("%1 bar"), QT_TR_NOOP("%1 bars")));
}

QString dataTip(const Experiment& e) {
    const nlohmann::json d = e.dataWithAbsoluteFile();
    if (d.value("source", std::string()) == "synthetic")
        return ComparisonRunsTable::tr("Synthetic data: %1").arg(QString::fromStdString(d.dump()));
    return ComparisonRunsTable::tr("Price file %1, window %2 (bars per sample), validation %3 %")
        .arg(QString::fromStdString(d.value("file", std::string())))
        .arg(countOf(d.value("window", 0), QT_TR_NOOP("%1 bar"), QT_TR_NOOP("%1 bars")))
        .arg(d.value("validationShare", 0.0) * 100.0, 0, 'f', 0);
}
}  // namespace

ComparisonRunsTable::ComparisonRunsTable(QWidget* parent) : QTableWidget(parent) {
    setObjectName(QStringLiteral("comparisonRuns"));
    setColumnCount(kColumns);
    setHorizontalHeaderLabels({tr("show"),
                               tr("run"),
                               tr("experiment"),
                               tr("data"),
                               tr("device"),
                               tr("status"),
                               tr("epoch"),
                               {}});
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::SingleSelection);
    verticalHeader()->hide();
    QHeaderView* h = horizontalHeader();
    h->setSectionResizeMode(QHeaderView::ResizeToContents);
    h->setSectionResizeMode(kStatus, QHeaderView::Stretch);
}

void ComparisonRunsTable::setRuns(const ComparisonSet& set, const std::vector<QColor>& colours) {
    // No selection signal while the rows are rebuilt: a listener would refresh rows that have
    // no widgets yet (the SIGSEGV of issue 13). The caller refreshes its actions afterwards.
    const QSignalBlocker block(this);
    clearSelection();
    setRowCount(0);
    setRowCount(static_cast<int>(set.runs.size()));
    for (int r = 0; r < rowCount(); ++r) {
        const ComparisonRun& run = set.runs[size_t(r)];
        auto* show = new QCheckBox(this);
        show->setChecked(true);
        show->setToolTip(tr("Show this run's curves"));
        show->setStyleSheet(QStringLiteral("QCheckBox { background: %1; padding: 2px 4px; }")
                                .arg(colours.at(size_t(r)).name()));
        connect(show, &QCheckBox::toggled, this, [this, r](bool on) { Q_EMIT showToggled(r, on); });
        setCellWidget(r, kShow, show);
        auto* name = new QTableWidgetItem(QString::fromStdString(run.record.label));
        name->setForeground(colours.at(size_t(r)));
        QFont bold = font();
        bold.setBold(true);
        name->setFont(bold);
        name->setToolTip(QString::fromStdString(run.experiment.name));
        setItem(r, kName, name);
        const QString file = QString::fromStdString(run.experimentFile);
        auto* fileItem =
            new QTableWidgetItem(file.isEmpty() ? tr("(in the set)") : QFileInfo(file).fileName());
        fileItem->setToolTip(file.isEmpty() ? tr("Stored in the comparison file") : file);
        setItem(r, kFile, fileItem);
        setItem(r, kData, dataItemFor(set, r));
        auto* picker = new DevicePicker(this);
        picker->setDevices(devices_);
        picker->setCurrentId(QString::fromStdString(run.experiment.training.device));
        connect(picker, &DevicePicker::deviceChanged, this,
                [this, r](const QString& id) { Q_EMIT deviceChosen(r, id); });
        setCellWidget(r, kDevice, picker);
        setItem(r, kStatus, new QTableWidgetItem);
        auto* bar = new QProgressBar(this);
        bar->setRange(0, 1000);
        bar->setValue(0);
        bar->setFormat(QStringLiteral("–"));
        bar->setMaximumWidth(140);
        setCellWidget(r, kProgress, bar);
        auto* stop = new QToolButton(this);
        stop->setIcon(style()->standardIcon(QStyle::SP_MediaStop));
        stop->setToolTip(tr("Stop this run"));
        stop->setObjectName(QStringLiteral("stopRun%1").arg(r));
        connect(stop, &QToolButton::clicked, this, [this, r] { Q_EMIT stopRequested(r); });
        setCellWidget(r, kStop, stop);
        updateRun(r, run.record, false);
    }
}

namespace {
// What a run trains on, written out in full: the settings with every default spelled and the
// file as an absolute path, so that the same file and settings compare equal however each
// experiment wrote them (a relative path, a key left at its default).
nlohmann::json dataIdentity(const Experiment& e) {
    const nlohmann::json d = e.dataWithAbsoluteFile();
    try {
        return DataConfig::fromJson(d).toJson();
    } catch (const std::exception&) {
        return d;  // settings the run will refuse: compared as written
    }
}
}  // namespace

QTableWidgetItem* ComparisonRunsTable::dataItemFor(const ComparisonSet& set, int r) const {
    const ComparisonRun& run = set.runs[size_t(r)];
    // Which data the run trains on (each run its own experiment's); a run on other data
    // than the first run's says so, as its figures are not comparable with the others'.
    auto* dataItem = new QTableWidgetItem(dataLabel(run.experiment));
    QString tip = dataTip(run.experiment);
    if (r > 0 && dataIdentity(run.experiment) != dataIdentity(set.runs.front().experiment)) {
        dataItem->setText(tr("≠ %1").arg(dataItem->text()));
        dataItem->setForeground(QColor(0xb0, 0x50, 0x00));
        tip += tr("\nOther data than run 1 (%1): its figures are not comparable with that "
                  "run's.")
                   .arg(dataLabel(set.runs.front().experiment));
    }
    dataItem->setToolTip(tip);
    return dataItem;
}

void ComparisonRunsTable::updateRun(int run, const RunRecord& record, bool running) {
    if (run < 0 || run >= rowCount()) return;
    QTableWidgetItem* status = item(run, kStatus);
    if (!status) return;  // a row being built
    status->setText(statusText(record));
    status->setToolTip(QString::fromStdString(record.error));
    status->setForeground(record.status == RunStatus::Failed ? QColor(0xb0, 0, 0)
                                                             : palette().color(QPalette::Text));
    if (auto* stop = cellWidget(run, kStop)) stop->setEnabled(running);
    if (record.finished()) {
        if (auto* bar = qobject_cast<QProgressBar*>(cellWidget(run, kProgress))) {
            bar->setFormat(tr("%1 done").arg(record.epochs.size()));
            if (record.status == RunStatus::Completed) bar->setValue(1000);
        }
    }
}

void ComparisonRunsTable::setProgress(int run, const TrainingProgress& p) {
    if (run < 0 || run >= rowCount()) return;
    auto* bar = qobject_cast<QProgressBar*>(cellWidget(run, kProgress));
    if (!bar) return;
    const double done = p.total ? double(p.done) / double(p.total) : 0.0;
    bar->setValue(p.epochs ? static_cast<int>(1000.0 * (p.epoch - 1 + done) / p.epochs) : 0);
    bar->setFormat(tr("%1/%2").arg(p.epoch).arg(p.epochs));
}

void ComparisonRunsTable::setEditable(bool editable) {
    for (int r = 0; r < rowCount(); ++r)
        if (QWidget* w = cellWidget(r, kDevice)) w->setEnabled(editable);
}

DevicePicker* ComparisonRunsTable::devicePicker(int run) const {
    return qobject_cast<DevicePicker*>(cellWidget(run, kDevice));
}

bool ComparisonRunsTable::runShown(int run) const {
    auto* box = qobject_cast<QCheckBox*>(cellWidget(run, kShow));
    return box && box->isChecked();
}

}  // namespace nnwb
