// File > Export Model… and Run > Predict…: both ask the training worker for the trained model
// as a ModelBundle (TrainingController::requestBundle) and, when it arrives, save it or open a
// PredictDialog with it. An ensemble bundle (a run's, from the Runs tab, or the one the Training
// pane just trained: TrainingController::ensembleKept) opens one too and is
// then the window's model until weights are trained or loaded: Export Model saves its bundle,
// Predict runs it, and its ONNX and MetaTrader 5 exports are written here (in BackgroundJobs)
// as `nnwb-cli export --model FILE` writes them. Owns the two actions; kept out of MainWindow.
// GUI thread only.
#pragma once

#include <memory>

#include <QObject>
#include <QPointer>
#include <QString>

#include "model/ModelBundle.h"

class QAction;
class QWidget;

namespace nnwb {

class CallQueue;
class ExperimentDocument;
class PredictDialog;
class TrainingController;

class ModelActions : public QObject {
    Q_OBJECT
public:
    ModelActions(TrainingController* controller, ExperimentDocument* doc, QWidget* window);
    ~ModelActions() override;

    QAction* exportAction() const { return export_; }
    QAction* predictAction() const { return predict_; }
    // Without dialogs (tests, demo flags): save the bundle to `path` / open the prediction
    // window and run the model on `file` as soon as the bundle arrives.
    void exportModel(const QString& path);
    void predictFile(const QString& file);
    // Opens the Predict window with the ensemble bundle `ensembleFile` (docs/ensembles.md):
    // runs it on `file`, or asks for one when empty, and makes it the window's model
    // (ensembleFile). False (a message says why) when the file is no ensemble bundle.
    bool predictWithEnsemble(const QString& ensembleFile, const QString& file = QString());
    PredictDialog* predictDialog() const;
    // The ensemble bundle that is the window's model ("" : the training worker's network).
    QString ensembleFile() const { return ensembleFile_; }
    void setEnsembleFile(const QString& file);
    // The ensemble's graph to `path` (nnwb-cli export --model FILE --onnx PATH), or the graph
    // and the Expert Advisor into `dir` (--mql5 DIR), the expert trading under the experiment's
    // trading rules (its minAgreement as InpMinAgreement's default; the CLI's --model: the
    // defaults). The outcome comes as onnxExported / mql5Exported.
    void exportEnsembleOnnx(const QString& path);
    void exportEnsembleMql5(const QString& dir);

Q_SIGNALS:
    void modelExported(bool ok, const QString& message);
    void ensembleChanged(bool have);
    // ok: the file written (the expert's for MetaTrader 5); else why not.
    void onnxExported(bool ok, const QString& message);
    void mql5Exported(bool ok, const QString& message);
    // The Predict window shows a new file's prediction (predictDialog()'s result and bars).
    void predictionShown();

private Q_SLOTS:
    void runQueuedCalls();

private:
    void onBundle(std::shared_ptr<const ModelBundle> bundle, const QString& error);

    TrainingController* controller_;
    ExperimentDocument* doc_;
    QWidget* window_;
    QAction* export_;
    QAction* predict_;
    enum class Pending { None, Export, Predict } pending_ = Pending::None;
    QString pendingPath_;
    QPointer<PredictDialog> dialog_;
    QString ensembleFile_;
    std::shared_ptr<CallQueue> calls_;  // the background exports' outcomes, run here
};

}  // namespace nnwb
