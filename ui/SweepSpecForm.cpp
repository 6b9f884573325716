#include "ui/SweepSpecForm.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>
#include <utility>

#include "model/sweep/SweepSpec.h"

namespace nnwb {

namespace {

enum SpecColumn { kPath, kFrom, kTo, kLog, kValues };

QComboBox* combo(QWidget* parent, const QStringList& items) {
    auto* c = new QComboBox(parent);
    c->addItems(items);
    return c;
}

}  // namespace

SweepSpecForm::SweepSpecForm(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(createParameters(), 1);
    layout->addWidget(createSettings());
    auto* write = new QPushButton(tr("Write Spec"), this);
    write->setObjectName(QStringLiteral("writeSpec"));
    write->setToolTip(tr("Write the spec JSON from this form into the Spec page"));
    layout->addWidget(write);
    connect(write, &QPushButton::clicked, this, &SweepSpecForm::writeRequested);
}

QWidget* SweepSpecForm::createParameters() {
    auto* box = new QWidget(this);
    auto* v = new QVBoxLayout(box);
    v->setContentsMargins(0, 0, 0, 0);
    auto* pick = new QHBoxLayout;
    field_ = new QComboBox(box);
    field_->setObjectName(QStringLiteral("sweepField"));
    field_->setToolTip(tr("A field of the current experiment to search"));
    field_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    field_->setMinimumContentsLength(16);
    auto* add = new QPushButton(tr("Add"), box);
    auto* remove = new QPushButton(tr("Remove"), box);
    pick->addWidget(field_, 1);
    pick->addWidget(add);
    pick->addWidget(remove);
    v->addLayout(pick);
    table_ = new QTableWidget(0, 5, box);
    table_->setObjectName(QStringLiteral("sweepParameters"));
    table_->setHorizontalHeaderLabels({tr("Field"), tr("From"), tr("To"), tr("Log"), tr("Values")});
    table_->horizontalHeaderItem(kValues)->setToolTip(
        tr("Values to choose from instead of a range: 2, 4, 8 or adam, sgd"));
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setSectionResizeMode(kPath, QHeaderView::Stretch);
    for (const auto& [column, width] : {std::pair{kFrom, 58}, {kTo, 58}, {kLog, 34}, {kValues, 80}})
        table_->setColumnWidth(column, width);
    table_->setMinimumHeight(80);
    v->addWidget(table_, 1);
    connect(add, &QPushButton::clicked, this, [this] { addField(field_->currentText()); });
    connect(remove, &QPushButton::clicked, this, &SweepSpecForm::removeSelected);
    return box;
}

QWidget* SweepSpecForm::createSettings() {
    auto* box = new QWidget(this);
    auto* f = new QFormLayout(box);
    f->setContentsMargins(0, 0, 0, 0);
    name_ = new QLineEdit(QStringLiteral("sweep"), box);
    method_ = combo(box, {"random", "sobol", "tpe", "grid"});
    // Epoch figures, then the end-of-trial ones (docs/sweeps.md "Objectives"; oos.* needs a
    // walk-forward experiment, and none of those can be pruned on).
    objective_ = combo(
        box, {"validation.loss", "validation.accuracy", "validation.missed", "train.loss",
              "train.accuracy", "train.missed", "trading.net", "trading.netPct", "trading.sharpe",
              "trading.sharpeAnnual", "trading.profitFactor", "trading.maxDrawdown",
              "trading.winRate", "trading.trades", "oos.loss", "oos.accuracy", "oos.missed"});
    goal_ = combo(box, {"min", "max"});
    connect(objective_, &QComboBox::activated, this, [this] { objectivePicked_ = true; });
    connect(objective_, &QComboBox::currentTextChanged, this, [this](const QString& m) {
        const bool larger =
            m.endsWith("accuracy") ||
            (m.startsWith("trading.") && m != "trading.maxDrawdown" && m != "trading.trades");
        goal_->setCurrentText(larger ? "max" : "min");
    });
    auto* objRow = new QHBoxLayout;
    objRow->addWidget(objective_, 1);
    objRow->addWidget(goal_);
    second_ = combo(box, {tr("none"), "parameters", "samplesPerSecond", "validation.accuracy",
                          "trading.net", "trading.sharpe", "trading.maxDrawdown"});
    early_ = combo(box, {"none", "asha", "median"});
    runCap_ = new QSpinBox(box);
    runCap_->setRange(1, 100000);
    runCap_->setValue(16);
    epochs_ = new QSpinBox(box);
    epochs_->setRange(0, 100000);
    epochs_->setSpecialValueText(tr("the experiment's"));
    population_ = new QSpinBox(box);
    population_->setRange(1, sweep::SweepSpec::kMaxPopulation);
    population_->setToolTip(
        tr("Trials of one architecture trained together in one process, in "
           "the same kernel launches (docs/sweeps.md, Packed trials)"));
    ensemble_ = new QSpinBox(box);
    ensemble_->setObjectName(QStringLiteral("sweepEnsemble"));
    ensemble_->setRange(1, sweep::SweepSpec::kMaxPopulation);
    ensemble_->setSpecialValueText(tr("off"));
    ensemble_->setToolTip(
        tr("Members of every trial: each trial a seed ensemble of K seeds of its configuration "
           "(its seed and the K - 1 after it), judged by the ensemble's figures; off: one model "
           "(docs/sweeps.md, Ensemble trials)"));
    problem_ = new QLabel(box);
    problem_->setObjectName(QStringLiteral("sweepFormProblem"));
    problem_->setWordWrap(true);
    problem_->setStyleSheet(QStringLiteral("color: #b00000"));
    problem_->hide();
    for (QSpinBox* b : {population_, ensemble_})
        connect(b, &QSpinBox::valueChanged, this, &SweepSpecForm::updateProblem);
    f->addRow(tr("Name"), name_);
    f->addRow(tr("Method"), method_);
    f->addRow(tr("Objective"), objRow);
    f->addRow(tr("Second objective"), second_);
    f->addRow(tr("Early termination"), early_);
    f->addRow(tr("Run cap"), runCap_);
    auto* epochsRow = new QHBoxLayout;  // one row: the form must fit a 1280x720 screen
    epochsRow->addWidget(epochs_, 1);
    epochsRow->addWidget(new QLabel(tr("Population"), box));
    epochsRow->addWidget(population_);
    epochsRow->addWidget(new QLabel(tr("Ensemble"), box));
    epochsRow->addWidget(ensemble_);
    f->addRow(tr("Epochs"), epochsRow);
    f->addRow(problem_);
    return box;
}

void SweepSpecForm::setExperiment(const nlohmann::json& experiment, const QString& ref) {
    ref_ = ref;
    fields_ = sweepableFields(experiment);
    // The objective suits the experiment (a walk-forward one's is out of sample) until the
    // user picks one.
    const QString objective = QString::fromStdString(defaultObjective(experiment));
    if (!objectivePicked_ && objective_->currentText() != objective)
        objective_->setCurrentText(objective);
    const QString keep = field_->currentText();
    field_->clear();
    for (const SweepField& f : fields_) field_->addItem(QString::fromStdString(f.path));
    if (!keep.isEmpty()) field_->setCurrentText(keep);
    walkForward_ = experiment.contains("validation") &&
                   experiment["validation"].value("mode", std::string()) == "walkforward";
    priceFile_ = !experiment.contains("data") ||
                 experiment["data"].value("source", std::string("file")) == "file";
    updateProblem();
}

QString SweepSpecForm::ensembleProblem() const {
    if (ensemble_->value() < 2) return {};
    // The form writes no seedsPerConfig (1).
    const std::string p = sweep::ensembleProblem(ensemble_->value(), population_->value(), 1,
                                                 walkForward_, priceFile_);
    return p.empty() ? QString() : QStringLiteral("ensemble: ") + QString::fromStdString(p);
}

void SweepSpecForm::updateProblem() {
    problem_->setText(ensembleProblem());
    problem_->setVisible(!problem_->text().isEmpty());
}

bool SweepSpecForm::addField(const QString& path) {
    const SweepField* f = nullptr;
    for (const SweepField& x : fields_)
        if (x.path == path.toStdString()) f = &x;
    if (!f) return false;
    const int row = table_->rowCount();
    table_->insertRow(row);
    auto* name = new QTableWidgetItem(path);
    name->setFlags(name->flags() & ~Qt::ItemIsEditable);
    name->setData(Qt::UserRole, f->value.is_number_integer());
    table_->setItem(row, kPath, name);
    auto* log = new QTableWidgetItem;
    log->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
    log->setCheckState(Qt::Unchecked);
    table_->setItem(row, kLog, log);
    const SweepDraftParam p = proposedParam(*f);
    if (!p.range)
        setRow(row, {}, {}, false, QString::fromStdString(p.values));
    else
        setRow(row, QString::number(p.min, 'g', p.integer ? 15 : 4),
               QString::number(p.max, 'g', p.integer ? 15 : 4), p.log, {});
    return true;
}

void SweepSpecForm::setRow(int row, const QString& from, const QString& to, bool log,
                           const QString& values) {
    table_->setItem(row, kFrom, new QTableWidgetItem(from));
    table_->setItem(row, kTo, new QTableWidgetItem(to));
    if (QTableWidgetItem* l = table_->item(row, kLog))
        l->setCheckState(log ? Qt::Checked : Qt::Unchecked);
    table_->setItem(row, kValues, new QTableWidgetItem(values));
}

void SweepSpecForm::removeSelected() {
    const int row = table_->currentRow();
    if (row >= 0) table_->removeRow(row);
}

SweepDraft SweepSpecForm::draft() const {
    SweepDraft d;
    d.name = name_->text().toStdString();
    d.experiment = ref_.toStdString();
    d.method = method_->currentText().toStdString();
    d.objective = objective_->currentText().toStdString();
    d.goal = goal_->currentText().toStdString();
    if (second_->currentIndex() > 0) d.secondObjective = second_->currentText().toStdString();
    d.earlyTerminate = early_->currentText().toStdString();
    d.runCap = runCap_->value();
    d.epochs = epochs_->value();
    d.population = population_->value();
    d.ensemble = ensemble_->value();
    auto text = [this](int r, int c) {
        return table_->item(r, c) ? table_->item(r, c)->text().trimmed() : QString();
    };
    for (int r = 0; r < table_->rowCount(); ++r) {
        SweepDraftParam p;
        p.path = text(r, kPath).toStdString();
        p.values = text(r, kValues).toStdString();
        p.range = p.values.empty();
        p.integer = table_->item(r, kPath)->data(Qt::UserRole).toBool();
        p.log = table_->item(r, kLog) && table_->item(r, kLog)->checkState() == Qt::Checked;
        p.min = text(r, kFrom).toDouble();
        p.max = text(r, kTo).toDouble();
        d.params.push_back(p);
    }
    return d;
}

QString SweepSpecForm::specText() const {
    return QString::fromStdString(specOfDraft(draft()).dump(2));
}

}  // namespace nnwb
