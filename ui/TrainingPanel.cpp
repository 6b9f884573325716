#include "ui/TrainingPanel.h"

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
    weightDecay_ = numberEdit(optBox, "weightDecay", 0, 10);
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
    layout->addStretch(1);

    for (QSpinBox* s : {batch_, epochs_, seed_}) {
        s->setKeyboardTracking(false);
        connect(s, qOverload<int>(&QSpinBox::valueChanged), this, &TrainingPanel::commit);
    }
    for (QDoubleSpinBox* s : {momentum_, beta1_, beta2_}) {
        s->setKeyboardTracking(false);
        connect(s, qOverload<double>(&QDoubleSpinBox::valueChanged), this,
                &TrainingPanel::commit);
    }
    for (QLineEdit* e : {learningRate_, epsilon_, weightDecay_})
        connect(e, &QLineEdit::editingFinished, this, &TrainingPanel::commit);
    for (QComboBox* c : {optimizer_, loss_})
        connect(c, qOverload<int>(&QComboBox::currentIndexChanged), this, &TrainingPanel::commit);
    connect(shuffle_, &QCheckBox::toggled, this, &TrainingPanel::commit);
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
    doc_->setTraining(t);
    syncFromDocument();  // normalizes the text of the number fields
}

}  // namespace nnwb
