#include "ui/TrainingPanel.h"

#include <algorithm>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QDoubleValidator>
#include <QFormLayout>
#include <QGroupBox>
#include <QLineEdit>
#include <QSpinBox>
#include <QVBoxLayout>

#include "app/core/ExperimentDocument.h"
#include "compute/BackendRegistry.h"
#include "ui/DevicePicker.h"

namespace nnwb {

namespace {
QLineEdit* numberEdit(QWidget* parent, const char* name, double lo, double hi) {
    auto* e = new QLineEdit(parent);
    e->setObjectName(QLatin1String(name));
    auto* v = new QDoubleValidator(lo, hi, 12, e);
    v->setNotation(QDoubleValidator::ScientificNotation);
    v->setLocale(QLocale::c());
    e->setValidator(v);
    return e;
}

QFormLayout* form(QGroupBox* box) {
    auto* f = new QFormLayout(box);
    f->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
    f->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    // In a narrow dock a field that does not fit beside its label goes below it.
    f->setRowWrapPolicy(QFormLayout::WrapLongRows);
    return f;
}
}  // namespace

TrainingPanel::TrainingPanel(ExperimentDocument* doc, QWidget* parent)
    : QWidget(parent), doc_(doc) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);

    auto* optBox = new QGroupBox(tr("Optimizer"), this);
    auto* of = form(optBox);
    optimizer_ = new QComboBox(optBox);
    optimizer_->setObjectName(QStringLiteral("optimizer"));
    optimizer_->addItem(tr("Adam (bias-corrected)"), QStringLiteral("adam"));
    optimizer_->addItem(tr("SGD with momentum"), QStringLiteral("sgd"));
    learningRate_ = numberEdit(optBox, "learningRate", 1e-9, 10);
    momentum_ = new QDoubleSpinBox(optBox);
    momentum_->setRange(0, 0.9999);
    momentum_->setDecimals(4);
    momentum_->setSingleStep(0.05);
    beta1_ = new QDoubleSpinBox(optBox);
    beta1_->setRange(0, 0.9999);
    beta1_->setDecimals(4);
    beta2_ = new QDoubleSpinBox(optBox);
    beta2_->setRange(0, 0.99999);
    beta2_->setDecimals(5);
    epsilon_ = numberEdit(optBox, "epsilon", 0, 1);
    weightDecay_ = numberEdit(optBox, "weightDecay", 0, 1);  // the format's range
    of->addRow(tr("Method:"), optimizer_);
    of->addRow(tr("Learning rate:"), learningRate_);
    of->addRow(tr("Momentum:"), momentum_);
    of->addRow(tr("β1:"), beta1_);
    of->addRow(tr("β2:"), beta2_);
    of->addRow(tr("ε:"), epsilon_);
    of->addRow(tr("Weight decay:"), weightDecay_);
    layout->addWidget(optBox);

    auto* runBox = new QGroupBox(tr("Run"), this);
    auto* rf = form(runBox);
    loss_ = new QComboBox(runBox);
    loss_->setObjectName(QStringLiteral("loss"));
    loss_->addItem(tr("Mean squared error"), QStringLiteral("mse"));
    loss_->addItem(tr("Softmax cross-entropy"), QStringLiteral("cross_entropy"));
    batch_ = new QSpinBox(runBox);
    batch_->setObjectName(QStringLiteral("batchSize"));
    batch_->setRange(1, 65536);
    epochs_ = new QSpinBox(runBox);
    epochs_->setObjectName(QStringLiteral("epochs"));
    epochs_->setRange(1, 1000000);
    seed_ = new QSpinBox(runBox);
    seed_->setObjectName(QStringLiteral("seed"));
    seed_->setRange(0, 2147483647);
    shuffle_ = new QCheckBox(tr("shuffle samples every epoch"), runBox);
    device_ = new DevicePicker(runBox);
    device_->setDevices(listDevices());
    rf->addRow(tr("Device:"), device_);
    rf->addRow(tr("Loss:"), loss_);
    rf->addRow(tr("Batch size:"), batch_);
    rf->addRow(tr("Epochs:"), epochs_);
    rf->addRow(tr("Seed:"), seed_);
    rf->addRow(QString(), shuffle_);
    layout->addWidget(runBox);

    auto* bestBox = new QGroupBox(tr("Best epoch and early stopping"), this);
    auto* bf = form(bestBox);
    monitor_ = new QComboBox(bestBox);
    monitor_->setObjectName(QStringLiteral("monitor"));
    monitor_->addItem(tr("Validation loss"), QStringLiteral("validation_loss"));
    monitor_->addItem(tr("Validation accuracy %"), QStringLiteral("validation_accuracy"));
    monitor_->addItem(tr("Validation missed %"), QStringLiteral("validation_missed"));
    monitor_->addItem(tr("Training loss"), QStringLiteral("training_loss"));
    monitor_->setToolTip(
        tr("The figure that picks the best epoch, ends the run early and drives the plateau "
           "schedule. Lower is better, except accuracy. Without a validation part the run "
           "watches the training loss."));
    keepBest_ = new QCheckBox(tr("keep the best epoch's weights"), bestBox);
    keepBest_->setObjectName(QStringLiteral("keepBest"));
    keepBest_->setToolTip(
        tr("Keeps a copy of the weights of the best epoch so far. That copy is the run's "
           "result: Export Weights writes it. Off: the last epoch's weights."));
    earlyStopping_ = new QCheckBox(tr("stop early"), bestBox);
    earlyStopping_->setObjectName(QStringLiteral("earlyStopping"));
    earlyStopping_->setToolTip(
        tr("Ends the run when the monitored figure has not improved "
           "for 'Patience' epochs."));
    patience_ = new QSpinBox(bestBox);
    patience_->setObjectName(QStringLiteral("patience"));
    patience_->setRange(1, 100000);
    patience_->setSuffix(tr(" epochs"));
    patience_->setToolTip(tr("Epochs without an improvement before the run stops."));
    minDelta_ = numberEdit(bestBox, "minDelta", 0, 1e6);
    minDelta_->setToolTip(
        tr("An epoch improves only when it beats the best by more than "
           "this (in the monitored figure's unit)."));
    bf->addRow(tr("Monitor:"), monitor_);
    bf->addRow(QString(), keepBest_);
    bf->addRow(QString(), earlyStopping_);
    bf->addRow(tr("Patience:"), patience_);
    bf->addRow(tr("Min. improvement:"), minDelta_);
    layout->addWidget(bestBox);

    auto* lrBox = new QGroupBox(tr("Learning-rate schedule"), this);
    auto* lf = form(lrBox);
    schedule_ = new QComboBox(lrBox);
    schedule_->setObjectName(QStringLiteral("lrSchedule"));
    schedule_->addItem(tr("Constant"), QStringLiteral("constant"));
    schedule_->addItem(tr("Step"), QStringLiteral("step"));
    schedule_->addItem(tr("Cosine"), QStringLiteral("cosine"));
    schedule_->addItem(tr("Reduce on plateau"), QStringLiteral("plateau"));
    schedule_->setToolTip(
        tr("Sets the rate once per epoch. Step: × γ every N epochs. Cosine: linear warm-up, "
           "then a half cosine from the base rate to the floor on the last epoch. Plateau: × "
           "factor after 'patience' epochs without an improvement of the monitored figure."));
    stepEpochs_ = new QSpinBox(lrBox);
    stepEpochs_->setObjectName(QStringLiteral("lrStepEpochs"));
    stepEpochs_->setRange(1, 1000000);
    stepEpochs_->setToolTip(tr("Step: epochs between two reductions."));
    gamma_ = new QDoubleSpinBox(lrBox);
    gamma_->setObjectName(QStringLiteral("lrGamma"));
    gamma_->setRange(0.0001, 1.0);
    gamma_->setDecimals(4);
    gamma_->setSingleStep(0.05);
    gamma_->setToolTip(tr("Step: the factor of each reduction."));
    warmup_ = new QSpinBox(lrBox);
    warmup_->setObjectName(QStringLiteral("lrWarmup"));
    warmup_->setRange(0, 1000000);
    warmup_->setToolTip(
        tr("Cosine: epochs of linear warm-up (epoch e of W trains at base × "
           "e / W)."));
    floor_ = numberEdit(lrBox, "lrFloor", 0, 10);
    floor_->setToolTip(tr("Cosine: the rate of the last epoch. Plateau: the lowest rate."));
    factor_ = new QDoubleSpinBox(lrBox);
    factor_->setObjectName(QStringLiteral("lrFactor"));
    factor_->setRange(0.0001, 1.0);
    factor_->setDecimals(4);
    factor_->setSingleStep(0.05);
    factor_->setToolTip(tr("Plateau: the factor of each reduction."));
    plateauPatience_ = new QSpinBox(lrBox);
    plateauPatience_->setObjectName(QStringLiteral("lrPatience"));
    plateauPatience_->setRange(1, 100000);
    plateauPatience_->setSuffix(tr(" epochs"));
    plateauPatience_->setToolTip(
        tr("Plateau: epochs without an improvement before a "
           "reduction."));
    lf->addRow(tr("Schedule:"), schedule_);
    lf->addRow(tr("Step every:"), stepEpochs_);
    lf->addRow(tr("γ:"), gamma_);
    lf->addRow(tr("Warm-up epochs:"), warmup_);
    lf->addRow(tr("Floor:"), floor_);
    lf->addRow(tr("Factor:"), factor_);
    lf->addRow(tr("Plateau patience:"), plateauPatience_);
    layout->addWidget(lrBox);

    auto* gradBox = new QGroupBox(tr("Gradients and loss"), this);
    auto* gf = form(gradBox);
    clipNorm_ = numberEdit(gradBox, "clipNorm", 0, 1e9);
    clipNorm_->setToolTip(
        tr("Gradient clipping: when the L2 norm of all parameter gradients together is above "
           "this, they are scaled down to it. 0 is off. The norm before clipping is reported "
           "per epoch (mean and max) either way."));
    classWeights_ = new QComboBox(gradBox);
    classWeights_->setObjectName(QStringLiteral("classWeights"));
    classWeights_->addItem(tr("None"), QStringLiteral("none"));
    classWeights_->addItem(tr("Balanced"), QStringLiteral("balanced"));
    classWeights_->addItem(tr("Given"), QStringLiteral("given"));
    classWeights_->setToolTip(
        tr("Weights of the classes in the loss. Balanced: N / (classes × samples of the class), "
           "counted on the training part, so rare fractals weigh more. Given: one weight per "
           "output. The reported loss stays unweighted."));
    givenWeights_ = new QLineEdit(gradBox);
    givenWeights_->setObjectName(QStringLiteral("givenWeights"));
    givenWeights_->setPlaceholderText(QStringLiteral("1, 2.5, 2.5"));
    givenWeights_->setToolTip(tr("Given: one weight per output, separated by commas."));
    gf->addRow(tr("Clip gradient norm:"), clipNorm_);
    gf->addRow(tr("Class weights:"), classWeights_);
    gf->addRow(tr("Weights:"), givenWeights_);
    layout->addWidget(gradBox);
    layout->addStretch(1);

    for (QSpinBox* s :
         {batch_, epochs_, seed_, patience_, stepEpochs_, warmup_, plateauPatience_}) {
        s->setKeyboardTracking(false);
        connect(s, qOverload<int>(&QSpinBox::valueChanged), this, &TrainingPanel::commit);
    }
    for (QDoubleSpinBox* s : {momentum_, beta1_, beta2_, gamma_, factor_}) {
        s->setKeyboardTracking(false);
        connect(s, qOverload<double>(&QDoubleSpinBox::valueChanged), this, &TrainingPanel::commit);
    }
    for (QLineEdit* e :
         {learningRate_, epsilon_, weightDecay_, minDelta_, floor_, clipNorm_, givenWeights_})
        connect(e, &QLineEdit::editingFinished, this, &TrainingPanel::commit);
    for (QComboBox* c : {optimizer_, loss_, monitor_, schedule_, classWeights_})
        connect(c, qOverload<int>(&QComboBox::currentIndexChanged), this, &TrainingPanel::commit);
    for (QCheckBox* c : {shuffle_, keepBest_, earlyStopping_})
        connect(c, &QCheckBox::toggled, this, &TrainingPanel::commit);
    connect(device_, &DevicePicker::deviceChanged, this, &TrainingPanel::commit);

    connect(doc_, &ExperimentDocument::replaced, this, &TrainingPanel::syncFromDocument);
    connect(doc_, &ExperimentDocument::trainingChanged, this, &TrainingPanel::syncFromDocument);
    syncFromDocument();
}

void TrainingPanel::syncFromDocument() {
    syncing_ = true;
    const TrainingConfig& t = doc_->experiment().training;
    const QLocale c = QLocale::c();
    optimizer_->setCurrentIndex(t.optimizer.type == "sgd" ? 1 : 0);
    learningRate_->setText(c.toString(t.optimizer.learningRate, 'g', 6));
    momentum_->setValue(t.optimizer.momentum);
    beta1_->setValue(t.optimizer.beta1);
    beta2_->setValue(t.optimizer.beta2);
    epsilon_->setText(c.toString(t.optimizer.epsilon, 'g', 6));
    weightDecay_->setText(c.toString(t.optimizer.weightDecay, 'g', 6));
    const bool sgd = t.optimizer.type == "sgd";
    momentum_->setEnabled(sgd);
    beta1_->setEnabled(!sgd);
    beta2_->setEnabled(!sgd);
    epsilon_->setEnabled(!sgd);
    loss_->setCurrentIndex(t.loss == LossKind::CrossEntropy ? 1 : 0);
    batch_->setValue(t.batchSize);
    epochs_->setValue(t.epochs);
    seed_->setValue(static_cast<int>(std::min<uint64_t>(t.seed, 2147483647)));
    shuffle_->setChecked(t.shuffle);
    device_->setCurrentId(QString::fromStdString(t.device));
    monitor_->setCurrentIndex(
        std::max(0, monitor_->findData(QString::fromStdString(monitorName(t.monitor)))));
    keepBest_->setChecked(t.keepBest);
    earlyStopping_->setChecked(t.earlyStopping.enabled);
    patience_->setValue(t.earlyStopping.patience);
    patience_->setEnabled(t.earlyStopping.enabled);
    minDelta_->setText(c.toString(t.earlyStopping.minDelta, 'g', 6));
    minDelta_->setEnabled(t.earlyStopping.enabled);
    const LrScheduleConfig& s = t.lrSchedule;
    schedule_->setCurrentIndex(std::max(0, schedule_->findData(QString::fromStdString(s.type))));
    stepEpochs_->setValue(s.stepEpochs);
    gamma_->setValue(s.gamma);
    warmup_->setValue(s.warmupEpochs);
    floor_->setText(c.toString(s.floor, 'g', 6));
    factor_->setValue(s.factor);
    plateauPatience_->setValue(s.patience);
    stepEpochs_->setEnabled(s.type == "step");
    gamma_->setEnabled(s.type == "step");
    warmup_->setEnabled(s.type == "cosine");
    floor_->setEnabled(s.type == "cosine" || s.type == "plateau");
    factor_->setEnabled(s.type == "plateau");
    plateauPatience_->setEnabled(s.type == "plateau");
    clipNorm_->setText(c.toString(t.clipNorm, 'g', 6));
    classWeights_->setCurrentIndex(
        std::max(0, classWeights_->findData(QString::fromStdString(t.classWeights.mode))));
    QStringList given;
    for (double w : t.classWeights.weights) given << c.toString(w, 'g', 6);
    givenWeights_->setText(given.join(QStringLiteral(", ")));
    givenWeights_->setEnabled(t.classWeights.mode == "given");
    syncing_ = false;
}

void TrainingPanel::commit() {
    if (syncing_) return;
    TrainingConfig t = doc_->experiment().training;
    const QLocale c = QLocale::c();
    bool ok = false;
    t.optimizer.type = optimizer_->currentData().toString().toStdString();
    double v = c.toDouble(learningRate_->text(), &ok);
    if (ok && v > 0) t.optimizer.learningRate = v;
    v = c.toDouble(epsilon_->text(), &ok);
    if (ok && v >= 0) t.optimizer.epsilon = v;
    v = c.toDouble(weightDecay_->text(), &ok);
    if (ok && v >= 0) t.optimizer.weightDecay = v;
    t.optimizer.momentum = momentum_->value();
    t.optimizer.beta1 = beta1_->value();
    t.optimizer.beta2 = beta2_->value();
    t.loss = loss_->currentIndex() == 1 ? LossKind::CrossEntropy : LossKind::Mse;
    t.batchSize = batch_->value();
    t.epochs = epochs_->value();
    t.seed = static_cast<uint64_t>(seed_->value());
    t.shuffle = shuffle_->isChecked();
    if (!device_->currentId().isEmpty()) t.device = device_->currentId().toStdString();
    t.monitor = monitorFromName(monitor_->currentData().toString().toStdString());
    t.keepBest = keepBest_->isChecked();
    t.earlyStopping.enabled = earlyStopping_->isChecked();
    t.earlyStopping.patience = patience_->value();
    v = c.toDouble(minDelta_->text(), &ok);
    if (ok && v >= 0) t.earlyStopping.minDelta = v;
    t.lrSchedule.type = schedule_->currentData().toString().toStdString();
    t.lrSchedule.stepEpochs = stepEpochs_->value();
    t.lrSchedule.gamma = gamma_->value();
    t.lrSchedule.warmupEpochs = warmup_->value();
    v = c.toDouble(floor_->text(), &ok);
    if (ok && v >= 0) t.lrSchedule.floor = v;
    t.lrSchedule.factor = factor_->value();
    t.lrSchedule.patience = plateauPatience_->value();
    v = c.toDouble(clipNorm_->text(), &ok);
    if (ok && v >= 0) t.clipNorm = v;
    t.classWeights.mode = classWeights_->currentData().toString().toStdString();
    std::vector<double> weights;
    for (const QString& part : givenWeights_->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        v = c.toDouble(part.trimmed(), &ok);
        if (!ok || v < 0) {
            weights.clear();
            break;
        }
        weights.push_back(v);
    }
    if (!weights.empty()) t.classWeights.weights = weights;
    if (t.classWeights.mode == "given" && t.classWeights.weights.empty())
        t.classWeights.weights = std::vector<double>(3, 1.0);  // a start the user edits
    doc_->setTraining(t);
    syncFromDocument();  // normalizes the text of the number fields
}

}  // namespace nnwb
