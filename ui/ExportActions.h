// File > Export Weights…, File > Export > ONNX… and > Export for MetaTrader 5…: the actions,
// their file dialogs, the requests to the training worker (or, for an opened ensemble, to
// ModelActions) and the messages of their outcome; with
// Export Model and Predict (ModelActions) enabled only while there are trained or loaded weights.
// GUI thread.
#pragma once

#include <functional>

#include <QObject>

class QAction;
class QMainWindow;

namespace nnwb {

class ModelActions;
class TrainingController;

class ExportActions : public QObject {
    Q_OBJECT
public:
    // `showError(title, message)`: how the window shows a failure.
    ExportActions(TrainingController* controller, ModelActions* model, QMainWindow* window,
                  std::function<void(const QString&, const QString&)> showError);

    QAction* weightsAction() const { return weights_; }
    QAction* onnxAction() const { return onnx_; }
    QAction* mql5Action() const { return mql5_; }
    // Enables the five actions that need weights (or, but for Export Weights, an opened
    // ensemble: ModelActions::ensembleFile); without, their status tip says why.
    void setHaveWeights(bool have);

private:
    void connectOutcomes();

    TrainingController* controller_;
    ModelActions* model_;
    QMainWindow* window_;
    std::function<void(const QString&, const QString&)> showError_;
    QAction* weights_;
    QAction* onnx_;
    QAction* mql5_;
    bool haveWeights_ = false;  // the training worker holds trained or loaded weights
};

}  // namespace nnwb
