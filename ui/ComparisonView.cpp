#include "ui/ComparisonView.h"

#include <algorithm>

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QStyle>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

#include "app/core/ComparisonController.h"
#include "app/core/ExperimentDocument.h"
#include "app/core/Presets.h"
#include "compute/BackendRegistry.h"
#include "ui/ComparisonAttention.h"
#include "ui/ComparisonChart.h"
#include "ui/ComparisonRunsTable.h"
#include "ui/ComparisonSummaryTable.h"
#include "ui/DevicePicker.h"
#include "ui/EpochPoints.h"
#include "ui/FileDialogs.h"
#include "ui/TableRows.h"

namespace nnwb {

namespace {
const QColor kRunColours[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xd6, 0x27, 0x28),
                              QColor(0x2c, 0xa0, 0x2c), QColor(0x94, 0x67, 0xbd),
                              QColor(0xff, 0x7f, 0x0e), QColor(0x8c, 0x56, 0x4b),
                              QColor(0xe3, 0x77, 0xc2), QColor(0x17, 0xbe, 0xcf)};
constexpr int kRunColourCount = sizeof(kRunColours) / sizeof(kRunColours[0]);

}  // namespace

QColor ComparisonView::runColour(int run) {
    return kRunColours[run % kRunColourCount];
}

ComparisonView::ComparisonView(ComparisonController* controller, ExperimentDocument* document,
                               QWidget* parent)
    : QWidget(parent), controller_(controller), document_(document) {
    setObjectName(QStringLiteral("comparisonView"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    createToolBar();
    layout->addWidget(toolBar_);
    message_ = new QLabel(this);
    message_->setObjectName(QStringLiteral("comparisonMessage"));
    message_->setWordWrap(true);
    message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    message_->hide();
    layout->addWidget(message_);

    auto* vsplit = split_ = new QSplitter(Qt::Vertical, this);
    vsplit->setObjectName(QStringLiteral("comparisonSplitter"));
    vsplit->setChildrenCollapsible(false);
    runs_ = new ComparisonRunsTable(this);
    runs_->setDevices(listDevices());
    runs_->setMinimumHeight(60);
    layout->addWidget(runs_);

    createCharts(vsplit);
    summary_ = new ComparisonSummaryTable(vsplit);
    // The upper part (the curves or the heatmaps) takes what the summary's rows leave.
    vsplit->setStretchFactor(0, 1);
    vsplit->setStretchFactor(1, 0);
    layout->addWidget(vsplit, 1);

    connectViews();

    connectController();

    rebuild();
    // The charts take what the summary leaves from the start too: an empty comparison kept the
    // lower part's asked-for height and plotted in 116 px at 1280x720.
    split_->setSizes({QWIDGETSIZE_MAX, 0});
}

void ComparisonView::createCharts(QWidget* parent) {
    auto* chartsBox = new QWidget(parent);
    auto* chartsLayout = new QVBoxLayout(chartsBox);
    chartsLayout->setContentsMargins(0, 0, 0, 0);
    auto* toggles = new QHBoxLayout;
    showTraining_ = new QCheckBox(tr("training (solid)"), chartsBox);
    showValidation_ = new QCheckBox(tr("validation (dashed)"), chartsBox);
    showTraining_->setChecked(true);
    showValidation_->setChecked(true);
    auto* hint = new QLabel(tr("Click a name in a legend to hide or show that run."), chartsBox);
    hint->setStyleSheet(QStringLiteral("color: palette(mid);"));
    toggles->addWidget(showTraining_);
    toggles->addWidget(showValidation_);
    toggles->addSpacing(12);
    toggles->addWidget(hint);
    toggles->addStretch(1);
    // The curves and the heatmaps take turns in the upper part, each with all of its room
    // (beside the summary the heatmaps had about 80 px at 1280x720).
    upperPicker_ = new QComboBox(chartsBox);
    upperPicker_->setObjectName(QStringLiteral("comparisonShows"));
    upperPicker_->addItems({tr("Curves"), tr("Attention heatmaps")});
    upperPicker_->setToolTip(tr("Show the runs' curves or their attention heatmaps"));
    toggles->addWidget(new QLabel(tr("Show"), chartsBox));
    toggles->addWidget(upperPicker_);
    chartsLayout->addLayout(toggles);
    upper_ = new QStackedWidget(chartsBox);
    chartsLayout->addWidget(upper_, 1);
    auto* curves = new QWidget(upper_);
    auto* chartRow = new QHBoxLayout(curves);
    chartRow->setContentsMargins(0, 0, 0, 0);
    upper_->addWidget(curves);
    auto* attentionScroll = new QScrollArea(upper_);
    attentionScroll->setWidgetResizable(true);
    attentionScroll->setFrameShape(QFrame::NoFrame);
    attention_ = new ComparisonAttention(attentionScroll);
    attentionScroll->setWidget(attention_);
    upper_->addWidget(attentionScroll);
    connect(upperPicker_, &QComboBox::currentIndexChanged, this, [this](int page) {
        upper_->setCurrentIndex(page);
        showTraining_->setEnabled(page == 0);
        showValidation_->setEnabled(page == 0);
    });
    charts_[0] = new ComparisonChart(tr("Loss"), tr("mean loss per sample"), curves);
    charts_[1] = new ComparisonChart(tr("Missed patterns"), tr("missed fractals (%)"), curves);
    charts_[2] = new ComparisonChart(tr("Accuracy"), tr("signals on a fractal (%)"), curves);
    const char* names[3] = {"comparisonLoss", "comparisonMissed", "comparisonAccuracy"};
    for (int i = 0; i < 3; ++i) {
        charts_[i]->setObjectName(QLatin1String(names[i]));
        charts_[i]->setPlaceholder(tr("No curves yet:\nAdd experiments, then Train All"));
        chartRow->addWidget(charts_[i], 1);
        connect(charts_[i], &ComparisonChart::runToggled, this, [this](int run, bool shown) {
            if (auto* box =
                    qobject_cast<QCheckBox*>(runs_->cellWidget(run, ComparisonRunsTable::kShow)))
                box->setChecked(shown);
        });
    }
}

void ComparisonView::connectViews() {
    auto parts = [this] {
        for (ComparisonChart* c : charts_)
            c->setPartsVisible(showTraining_->isChecked(), showValidation_->isChecked());
    };
    connect(showTraining_, &QCheckBox::toggled, this, parts);
    connect(showValidation_, &QCheckBox::toggled, this, parts);
    connect(runs_, &ComparisonRunsTable::showToggled, this, [this](int run, bool shown) {
        for (ComparisonChart* c : charts_) c->setRunVisible(run, shown);
    });
    connect(runs_, &ComparisonRunsTable::deviceChosen, this,
            [this](int run, const QString& id) { controller_->setDevice(run, id); });
    connect(runs_, &ComparisonRunsTable::stopRequested, controller_, &ComparisonController::stop);
    connect(runs_, &QTableWidget::itemSelectionChanged, this, [this] { updateActions(); });
    connect(attention_, &ComparisonAttention::sampleRequested, controller_,
            &ComparisonController::requestScores);
}

void ComparisonView::connectController() {
    connect(controller_, &ComparisonController::runsChanged, this, [this] { rebuild(); });
    connect(controller_, &ComparisonController::runChanged, this, [this](int run) {
        refreshRun(run);
        refreshSummary();
        updateActions();
    });
    connect(controller_, &ComparisonController::runProgress, runs_,
            &ComparisonRunsTable::setProgress);
    connect(controller_, &ComparisonController::epochFinished, this,
            [this](int run, const EpochReport& r) {
                addEpochPoints(charts_, run, r, controller_->record(run).hasValidation());
            });
    connect(controller_, &ComparisonController::attentionReady, attention_,
            &ComparisonAttention::setSnapshot);
    connect(controller_, &ComparisonController::runFinished, this,
            [this](int run, RunEnd end, const QString& message) {
                if (end == RunEnd::Failed)
                    showMessage(
                        tr("%1 failed: %2")
                            .arg(QString::fromStdString(controller_->record(run).label), message),
                        true);
            });
    connect(controller_, &ComparisonController::allFinished, this, [this] { updateActions(); });
}

void ComparisonView::createToolBar() {
    auto* bar = new QToolBar(this);
    bar->setObjectName(QStringLiteral("comparisonToolBar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    toolBar_ = bar;

    createAddMenu();

    auto* addButton = new QToolButton(bar);
    addButton->setText(tr("Add"));
    addButton->setIcon(style()->standardIcon(QStyle::SP_FileDialogNewFolder));
    addButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    addButton->setPopupMode(QToolButton::InstantPopup);
    addButton->setMenu(addMenu_);
    addButton->setObjectName(QStringLiteral("comparisonAdd"));
    bar->addWidget(addButton);
    remove_ =
        bar->addAction(style()->standardIcon(QStyle::SP_TrashIcon), tr("Remove"), this, [this] {
            const auto rows = runs_->selectionModel()->selectedRows();
            if (!rows.isEmpty()) controller_->removeRun(rows.first().row());
        });
    bar->addSeparator();
    bar->addWidget(new QLabel(tr(" epochs "), bar));
    epochs_ = new QSpinBox(bar);
    epochs_->setObjectName(QStringLiteral("comparisonEpochs"));
    epochs_->setRange(0, 1000000);
    epochs_->setSpecialValueText(tr("each its own"));
    epochs_->setToolTip(tr("Epochs every run trains (0: each experiment's own)"));
    bar->addWidget(epochs_);
    trainAll_ = bar->addAction(style()->standardIcon(QStyle::SP_MediaPlay), tr("Train All"), this,
                               [this] { trainAll(); });
    stopAll_ = bar->addAction(style()->standardIcon(QStyle::SP_MediaStop), tr("Stop All"),
                              controller_, &ComparisonController::stopAll);
    bar->addSeparator();
    openSet_ = bar->addAction(style()->standardIcon(QStyle::SP_DialogOpenButton), tr("Open Set…"),
                              this, &ComparisonView::openSetDialog);
    saveSet_ = bar->addAction(style()->standardIcon(QStyle::SP_DialogSaveButton), tr("Save Set…"),
                              this, &ComparisonView::saveSetDialog);
}

void ComparisonView::createAddMenu() {
    addMenu_ = new QMenu(tr("Add"), this);
    QAction* current = addMenu_->addAction(tr("Current Experiment (a copy)"));
    QAction* fresh = addMenu_->addAction(tr("New Experiment"));
    QAction* file = addMenu_->addAction(tr("Experiment File…"));
    QMenu* presets = addMenu_->addMenu(tr("Preset"));
    for (const PresetInfo& p : listPresets()) {
        QAction* a = presets->addAction(p.id);
        a->setToolTip(p.summary());
        const QString path = p.path;
        connect(a, &QAction::triggered, this, [this, path] {
            QString error;
            if (!addFromFileOrPreset(path, {}, &error)) showMessage(error, true);
        });
    }
    connect(current, &QAction::triggered, this, [this] {
        // A modified document is embedded in the set as it is now; a saved one is referenced.
        const bool saved = !document_->filePath().isEmpty() && !document_->isModified();
        controller_->addRun(document_->experiment(), saved ? document_->filePath() : QString());
    });
    connect(fresh, &QAction::triggered, this,
            [this] { controller_->addRun(builtinExperiment(), {}); });
    connect(file, &QAction::triggered, this, [this] {
        const QStringList paths = openFileNames(this, tr("Add experiments"),
                                                QFileInfo(document_->filePath()).absolutePath(),
                                                tr("nnwb experiments (*.json)"));
        for (const QString& p : paths) {
            QString error;
            if (!addFromFileOrPreset(p, {}, &error)) showMessage(error, true);
        }
    });
}

std::vector<QColor> ComparisonView::colours() const {
    std::vector<QColor> out;
    for (int i = 0; i < controller_->runCount(); ++i) out.push_back(runColour(i));
    return out;
}

void ComparisonView::rebuild() {
    QStringList names;
    for (int i = 0; i < controller_->runCount(); ++i)
        names << QString::fromStdString(controller_->record(i).label);
    const std::vector<QColor> cs = colours();
    runs_->setRuns(controller_->set(), cs);
    // The runs table is as tall as its rows, so that the charts get the rest.
    int rowsHeight = runs_->horizontalHeader()->sizeHint().height() + 2 * runs_->frameWidth() + 4;
    for (int r = 0; r < runs_->rowCount(); ++r)
        rowsHeight += runs_->verticalHeader()->sectionSize(r);
    runs_->setMaximumHeight(
        std::max(rowsHeight, 3 * runs_->verticalHeader()->defaultSectionSize()));
    for (ComparisonChart* c : charts_) {
        c->setRuns(names, cs);
        c->setPartsVisible(showTraining_->isChecked(), showValidation_->isChecked());
    }
    // A reopened set shows its run histories.
    for (int i = 0; i < controller_->runCount(); ++i) {
        const RunRecord& r = controller_->record(i);
        for (const EpochReport& e : r.epochs) addEpochPoints(charts_, i, e, r.hasValidation());
    }
    attention_->setRuns(names, cs);
    for (int i = 0; i < controller_->runCount(); ++i)
        if (const AttentionSnapshotPtr s = controller_->scores(i)) attention_->setSnapshot(i, s);
    {
        const QSignalBlocker block(epochs_);
        epochs_->setValue(controller_->set().epochs);
    }
    refreshSummary();
    updateActions();
}

void ComparisonView::refreshRun(int run) {
    runs_->updateRun(run, controller_->record(run), controller_->isRunning(run));
    if (auto* picker = runs_->devicePicker(run)) {
        const QSignalBlocker block(picker);
        picker->setCurrentId(QString::fromStdString(controller_->record(run).deviceId));
    }
}

void ComparisonView::refreshSummary() {
    const int rows = summary_->rowCount();
    summary_->setRecords(controller_->records(), colours());
    // Room for five rows (all of fewer); a new set of runs gives the charts the rest again.
    summary_->setMinimumHeight(
        tableHeightForRows(summary_, std::clamp(summary_->rowCount(), 1, 5)));
    if (summary_->rowCount() != rows) split_->setSizes({QWIDGETSIZE_MAX, 0});
}

void ComparisonView::updateActions() {
    const bool busy = controller_->isBusy();
    const bool any = controller_->runCount() > 0;
    trainAll_->setEnabled(!busy && any);
    stopAll_->setEnabled(busy);
    remove_->setEnabled(!busy && !runs_->selectionModel()->selectedRows().isEmpty());
    addMenu_->setEnabled(!busy);
    openSet_->setEnabled(!busy);
    saveSet_->setEnabled(any);
    epochs_->setEnabled(!busy);
    runs_->setEditable(!busy);
    for (int i = 0; i < controller_->runCount(); ++i)
        runs_->updateRun(i, controller_->record(i), controller_->isRunning(i));
}

bool ComparisonView::trainAll(int epochs) {
    if (epochs > 0) epochs_->setValue(epochs);
    controller_->setEpochs(epochs_->value());
    message_->hide();
    QString error;
    if (!controller_->start(&error)) {
        if (!error.isEmpty()) showMessage(error, true);
        return false;
    }
    for (int i = 0; i < controller_->runCount(); ++i)
        for (ComparisonChart* c : charts_) c->clearRun(i);
    attention_->clearSnapshots();
    updateActions();
    return true;
}

bool ComparisonView::addFromFileOrPreset(const QString& fileOrPreset, const QString& device,
                                         QString* error) {
    QString path = fileOrPreset;
    if (!QFileInfo::exists(path)) path = presetPath(fileOrPreset);
    if (!QFileInfo::exists(path)) {
        if (error) *error = tr("%1: no such experiment file or preset").arg(fileOrPreset);
        return false;
    }
    try {
        const Experiment e = Experiment::load(path.toStdString());
        if (controller_->addRun(e, path, device) < 0) {
            if (error) *error = tr("Stop the running comparison first.");
            return false;
        }
    } catch (const std::exception& ex) {
        if (error) *error = QString::fromStdString(ex.what());
        return false;
    }
    return true;
}

void ComparisonView::openSetDialog() {
    const QString path = openFileName(this, tr("Open comparison set"),
                                      QFileInfo(controller_->filePath()).absolutePath(),
                                      tr("nnwb comparison sets (*.json)"));
    if (path.isEmpty()) return;
    QString error;
    if (controller_->open(path, &error))
        message_->hide();  // "Saved …" or an error was about the set that was on show
    else
        showMessage(error, true);
}

void ComparisonView::saveSetDialog() {
    const QString path =
        saveFileName(this, tr("Save comparison set"),
                     controller_->filePath().isEmpty() ? QStringLiteral("comparison.json")
                                                       : controller_->filePath(),
                     tr("nnwb comparison sets (*.json)"));
    if (path.isEmpty()) return;
    QString error;
    if (controller_->save(path, &error))
        showMessage(tr("Saved %1").arg(path), false);
    else
        showMessage(error, true);
}

void ComparisonView::showMessage(const QString& text, bool error) {
    message_->setText(text);
    message_->setStyleSheet(
        error ? QStringLiteral("QLabel { color: #7a1010; background: #fde2e1; border: 1px solid "
                               "#f0b4b0; border-radius: 3px; padding: 6px; }")
              : QStringLiteral("QLabel { color: #1d4d1d; background: #e3f4e1; border: 1px solid "
                               "#b4dcb0; border-radius: 3px; padding: 6px; }"));
    message_->show();
}

}  // namespace nnwb
