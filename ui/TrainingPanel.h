// The Training pane: optimizer (adam / sgd) and its settings, loss, batch size, epochs, seed,
// shuffle, the compute device, the best epoch and early stopping (monitored metric, keep best,
// patience, minimum improvement) and the learning-rate schedule. Every edit goes straight to
// the document's training section (a running training keeps its own copy). GUI thread only.
#pragma once

#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;

namespace nnwb {

class DevicePicker;
class ExperimentDocument;

class TrainingPanel : public QWidget {
    Q_OBJECT
public:
    explicit TrainingPanel(ExperimentDocument* doc, QWidget* parent = nullptr);
    DevicePicker* devicePicker() const { return device_; }

private:
    void syncFromDocument();
    void commit();

    ExperimentDocument* doc_;
    bool syncing_ = false;
    QComboBox* optimizer_;
    QLineEdit* learningRate_;
    QDoubleSpinBox* momentum_;
    QDoubleSpinBox* beta1_;
    QDoubleSpinBox* beta2_;
    QLineEdit* epsilon_;
    QLineEdit* weightDecay_;
    QComboBox* loss_;
    QSpinBox* batch_;
    QSpinBox* epochs_;
    QSpinBox* seed_;
    QCheckBox* shuffle_;
    DevicePicker* device_;
    QComboBox* monitor_;
    QCheckBox* keepBest_;
    QCheckBox* earlyStopping_;
    QSpinBox* patience_;
    QLineEdit* minDelta_;
    QComboBox* schedule_;
    QSpinBox* stepEpochs_;
    QDoubleSpinBox* gamma_;
    QSpinBox* warmup_;
    QLineEdit* floor_;
    QDoubleSpinBox* factor_;
    QSpinBox* plateauPatience_;
};

}  // namespace nnwb
