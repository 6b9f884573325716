#include "ui/SweepsView.h"

#include "ui/FileDialogs.h"

#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QThread>
#include <QVBoxLayout>

#include "app/core/SweepPresenter.h"
#include "app/sweep/SweepReadModel.h"
#include "ui/PaneScrollArea.h"
#include "ui/ParallelCoordinates.h"
#include "ui/SweepCurvesChart.h"
#include "ui/SweepImportanceChart.h"
#include "ui/SweepList.h"
#include "ui/SweepOverfittingChart.h"
#include "ui/SweepParetoChart.h"
#include "ui/SweepSpecEditor.h"
#include "ui/SweepSpecForm.h"
#include "ui/SweepTrialsTable.h"
#include "ui/TableRows.h"

namespace nnwb {

SweepsView::SweepsView(SweepPresenter* presenter, QWidget* parent)
    : QWidget(parent), presenter_(presenter) {
    setObjectName(QStringLiteral("sweepsView"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(createSpecSide());
    split->addWidget(createResultSide());
    split->setStretchFactor(0, 0);
    split->setStretchFactor(1, 1);
    split->setSizes({380, 800});
    layout->addWidget(split);
    connectPresenter();
    updateButtons();
}

QWidget* SweepsView::createSpecSide() {
    auto* side = new QWidget(this);
    auto* v = new QVBoxLayout(side);
    v->setContentsMargins(0, 0, 0, 0);
    specTabs_ = new QTabWidget(side);
    form_ = new SweepSpecForm(specTabs_);
    editor_ = new SweepSpecEditor(specTabs_);
    specTabs_->addTab(form_, tr("Form"));
    specTabs_->addTab(editor_, tr("Spec (JSON)"));
    // The spec scrolls, the Start row and the list under it stay in view: its fields would
    // otherwise set the tab's (and the window's) minimum height above a 600 px screen, and
    // with a refusal showing under the fields the whole side scrolled the Start row away.
    v->addWidget(new PaneScrollArea(specTabs_), 3);
    auto* run = new QHBoxLayout;
    slots_ = new QLineEdit(
        QStringLiteral("cpu=%1").arg(std::max(1, QThread::idealThreadCount() / 2)), side);
    slots_->setObjectName(QStringLiteral("sweepSlots"));
    slots_->setToolTip(
        tr("Where trials run, each a process: a number of CPU slots (the cores shared out), or "
           "DEVICE=COUNT items with commas, as nnwb-cli sweep --slots takes them: cpu=2, "
           "opencl:0:0=4 (4 trials at a time on that OpenCL device; the ids are the device "
           "picker's), opencl:0:*=4 (4 on every device of platform 0)"));
    start_ = new QPushButton(tr("Start"), side);
    stop_ = new QPushButton(tr("Stop"), side);
    stop_->setToolTip(tr("Stop the trials at their next epoch; Resume goes on later"));
    run->addWidget(slots_);
    run->addWidget(start_);
    run->addWidget(stop_);
    v->addLayout(run);
    auto* sweeps = new QGroupBox(tr("Sweeps in the run store"), side);
    auto* sv = new QVBoxLayout(sweeps);
    list_ = new SweepList(sweeps);
    // Five sweeps in sight, as after an afternoon's work (60 px showed one and a half at
    // 1280x720); the spec pane scrolls instead.
    list_->setMinimumHeight(tableHeightForRows(list_, 5));
    resume_ = new QPushButton(tr("Resume"), sweeps);
    resume_->setToolTip(tr("Go on with the selected sweep (stopped or interrupted)"));
    import_ = new QPushButton(tr("Import Bundle…"), sweeps);
    import_->setToolTip(
        tr("Bring a Slurm sweep bundle's finished trials into the run store (its results/ "
           "copied back; importing again changes nothing; docs/slurm.md)"));
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(resume_);
    buttons->addWidget(import_);
    importNote_ = new QLabel(sweeps);
    importNote_->setObjectName(QStringLiteral("sweepImportNote"));
    importNote_->setWordWrap(true);
    importNote_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    importNote_->hide();
    sv->addWidget(list_);
    sv->addLayout(buttons);
    sv->addWidget(importNote_);
    v->addWidget(sweeps, 1);
    connect(form_, &SweepSpecForm::writeRequested, this, &SweepsView::writeSpec);
    connect(editor_, &SweepSpecEditor::checkRequested, this,
            [this] { presenter_->check(editor_->text(), editor_->file()); });
    connect(start_, &QPushButton::clicked, this, &SweepsView::startSweep);
    connect(stop_, &QPushButton::clicked, presenter_, &SweepPresenter::stop);
    connect(resume_, &QPushButton::clicked, this, &SweepsView::resumeSelected);
    connect(import_, &QPushButton::clicked, this, &SweepsView::importBundle);
    connect(list_, &SweepList::reopenRequested, this, &SweepsView::reopen);
    return side;
}

QWidget* SweepsView::createResultSide() {
    auto* split = new QSplitter(Qt::Vertical, this);
    auto* top = new QWidget(split);
    auto* v = new QVBoxLayout(top);
    v->setContentsMargins(0, 0, 0, 0);
    auto* head = new QHBoxLayout;
    summary_ = new QLabel(tr("No sweep shown: start one, or pick one from the list"), top);
    summary_->setObjectName(QStringLiteral("sweepSummary"));
    summary_->setWordWrap(true);
    openTrial_ = new QPushButton(tr("Open Trial as Run"), top);
    openTrial_->setToolTip(
        tr("The selected trial's experiment, curves and model in the "
           "Experiment tab (or double-click the trial)"));
    head->addWidget(summary_, 1);
    filterNote_ = new QLabel(top);
    filterNote_->setObjectName(QStringLiteral("sweepFilterNote"));
    filterNote_->setStyleSheet(QStringLiteral("color: #8a6d00"));
    filterNote_->hide();
    head->addWidget(filterNote_);
    head->addWidget(openTrial_);
    v->addLayout(head);
    trials_ = new SweepTrialsTable(top);
    trials_->setMinimumHeight(60);
    v->addWidget(trials_);
    charts_ = new QTabWidget(split);
    curves_ = new SweepCurvesChart(charts_);
    parallel_ = new ParallelCoordinates(charts_);
    importance_ = new SweepImportanceChart(charts_);
    pareto_ = new SweepParetoChart(charts_);
    overfitting_ = new SweepOverfittingChart(charts_);
    charts_->addTab(curves_, tr("Learning Curves"));
    charts_->addTab(parallel_, tr("Parallel Coordinates"));
    charts_->addTab(importance_, tr("Importance"));
    charts_->addTab(pareto_, tr("Pareto Front"));
    charts_->addTab(overfitting_, tr("Overfitting"));
    split->addWidget(top);
    split->addWidget(charts_);
    split->setSizes({260, 300});
    connect(openTrial_, &QPushButton::clicked, this, [this] {
        if (const qint64 run = trials_->selectedRun(); run > 0) Q_EMIT openRunRequested(run);
    });
    connect(trials_, &SweepTrialsTable::openRunRequested, this, &SweepsView::openRunRequested);
    connect(trials_, &QTableWidget::itemSelectionChanged, this, &SweepsView::updateButtons);
    connect(parallel_, &ParallelCoordinates::filterChanged, this, &SweepsView::applyFilter);
    return split;
}

void SweepsView::connectPresenter() {
    connect(presenter_, &SweepPresenter::specChecked, this, [this](const QString& error) {
        editor_->showError(error);
        summary_->setText(error.isEmpty() ? tr("The spec loads: ready to start")
                                          : tr("The spec does not load (see under it)"));
    });
    connect(presenter_, &SweepPresenter::specSaved, editor_, &SweepSpecEditor::setFile);
    connect(presenter_, &SweepPresenter::listed, this,
            [this](const std::vector<SweepRow>& rows, const QString& error) {
                list_->setSweeps(rows);
                if (!error.isEmpty()) summary_->setText(error);
                updateButtons();
            });
    connect(presenter_, &SweepPresenter::started, this, [this](qint64 id) {
        specShownOf_ = id;  // the editor already holds its spec
        summary_->setText(tr("Sweep %1 starting…").arg(id));
        presenter_->refreshList();
        list_->selectId(id);
        updateButtons();
    });
    connect(presenter_, &SweepPresenter::finished, this,
            [this](qint64, const QString&) { updateButtons(); });
    connect(presenter_, &SweepPresenter::failed, this, [this](const QString& error) {
        editor_->showError(error);
        summary_->setText(tr("The sweep did not start: %1").arg(error));
        updateButtons();
    });
    connect(presenter_, &SweepPresenter::shown, this, &SweepsView::showSnapshot);
    connect(presenter_, &SweepPresenter::bundleImported, this,
            [this](qint64 id, const QString& summary) {
                presenter_->refreshList();
                if (id > 0) {
                    list_->selectId(id);
                    reopen(id);
                }
                importNote_->setText(summary);
                importNote_->show();
            });
}

void SweepsView::setExperimentSource(std::function<nlohmann::json()> experiment,
                                     std::function<QString()> reference) {
    experiment_ = std::move(experiment);
    reference_ = std::move(reference);
}

void SweepsView::refresh() {
    presenter_->refreshList();
    refreshFields();
}

void SweepsView::refreshFields() {
    if (experiment_) form_->setExperiment(experiment_(), {});
}

void SweepsView::writeSpec() {
    if (reference_) form_->setExperimentRef(reference_());
    editor_->setText(form_->specText());
    specTabs_->setCurrentWidget(editor_);
    presenter_->check(editor_->text(), editor_->file());
}

void SweepsView::startSweep() {
    if (specTabs_->currentWidget() == form_) {
        if (reference_) form_->setExperimentRef(reference_());
        editor_->setText(form_->specText());
    }
    editor_->showError({});
    if (presenter_->start(editor_->text(), editor_->file(), slots_->text()))
        summary_->setText(tr("Loading the spec…"));
    updateButtons();
}

void SweepsView::resumeSelected() {
    const qint64 id = list_->selectedId();
    if (id > 0 && presenter_->resume(id, slots_->text()))
        summary_->setText(tr("Resuming sweep %1…").arg(id));
    updateButtons();
}

void SweepsView::importBundle() {
    const QString dir = existingDirectory(this, tr("Import Sweep Bundle"), QString());
    if (dir.isEmpty()) return;
    importNote_->setText(tr("Importing %1…").arg(dir));
    importNote_->show();
    presenter_->importBundle(dir);
}

void SweepsView::reopen(qint64 id) {
    presenter_->show(id);
    updateButtons();
}

void SweepsView::showSnapshot(const SweepSnapshot& s) {
    if (specShownOf_ != s.sweep.id && !presenter_->isRunning()) {
        specShownOf_ = s.sweep.id;
        editor_->setText(QString::fromStdString(s.sweep.spec.dump(2)),
                         QString::fromStdString(s.sweep.specFile));
    }
    trials_->setSnapshot(s);
    curves_->setSnapshot(s);
    parallel_->setSnapshot(s);  // its filterChanged applies the brushes to table and curves
    importance_->setSnapshot(s);
    pareto_->setSnapshot(s);
    overfitting_->setSnapshot(s);
    charts_->setTabEnabled(charts_->indexOf(pareto_), !s.secondObjective.empty());
    const auto& c = s.report["counts"];
    QString text =
        tr("Sweep %1 \"%2\": %3 — %4 complete, %5 pruned, %6 failed, %7 running")
            .arg(s.sweep.id)
            .arg(QString::fromStdString(s.sweep.name), QString::fromStdString(s.sweep.status))
            .arg(c.value("complete", 0))
            .arg(c.value("pruned", 0))
            .arg(c.value("failed", 0))
            .arg(c.value("running", 0));
    const nlohmann::json& best = s.report["best"];
    if (best.is_object() && best["value"].is_number())
        text += tr("; best %1 = %2 (trial %3)")
                    .arg(QString::fromStdString(s.objective))
                    .arg(QString::fromStdString(sweepValueText(best["value"].get<double>())))
                    .arg(best.value("number", 0));
    // The deflated Sharpe ratio of the trials' trading (docs/sweeps.md); its meaning as tooltip.
    const auto dsr = s.report.find("deflatedSharpe");
    QString dsrTip;
    if (dsr != s.report.end() && dsr->is_object()) {
        if ((*dsr)["probability"].is_number())
            text += tr("; deflated Sharpe ratio %1 (trial %2)")
                        .arg((*dsr)["probability"].get<double>(), 0, 'f', 3)
                        .arg((*dsr).value("bestTrial", 0));
        dsrTip = QString::fromStdString((*dsr).value("meaning", std::string()));
    }
    summary_->setToolTip(dsrTip);
    summary_->setText(text);
    updateButtons();
}

void SweepsView::applyFilter() {
    const bool all = !parallel_->brushed();
    const std::set<int> shown = parallel_->visibleTrials();
    trials_->setFilter(shown, all);
    curves_->setFilter(shown, all);
    // Hidden rows would otherwise look like missing trials.
    filterNote_->setVisible(!all);
    filterNote_->setText(tr("%1 of %2 trials (brushed: click the axis to clear)")
                             .arg(trials_->shownRows())
                             .arg(trials_->rowCount()));
}

void SweepsView::updateButtons() {
    const bool running = presenter_->isRunning();
    start_->setEnabled(!running);
    stop_->setEnabled(running && presenter_->runningId() > 0);
    const qint64 id = list_->selectedId();
    const QString status = list_->statusOf(id);
    resume_->setEnabled(!running && id > 0 && status != QLatin1String("completed"));
    openTrial_->setEnabled(trials_->selectedRun() > 0);
}

}  // namespace nnwb
