// File > Export Model… and Run > Predict…: both ask the training worker for the trained model
// as a ModelBundle (TrainingController::requestBundle) and, when it arrives, save it or open a
// PredictDialog with it; an ensemble bundle (a run's, from the Runs tab) opens one too. Owns the
// two actions; kept out of MainWindow. GUI thread only.
#pragma once

#include <memory>

#include <QObject>
#include <QPointer>
#include <QString>

#include "model/ModelBundle.h"

class QAction;
class QWidget;

namespace nnwb {

class ExperimentDocument;
class PredictDialog;
class TrainingController;

class ModelActions : public QObject {
    Q_OBJECT
public:
    ModelActions(TrainingController* controller, ExperimentDocument* doc, QWidget* window);

    QAction* exportAction() const { return export_; }
    QAction* predictAction() const { return predict_; }
    // Without dialogs (tests, demo flags): save the bundle to `path` / open the prediction
    // window and run the model on `file` as soon as the bundle arrives.
    void exportModel(const QString& path);
    void predictFile(const QString& file);
    // Opens the Predict window with the ensemble bundle `ensembleFile` (docs/ensembles.md):
    // runs it on `file`, or asks for one when empty. False (a message says why) when the file
    // is no ensemble bundle.
    bool predictWithEnsemble(const QString& ensembleFile, const QString& file = QString());
    PredictDialog* predictDialog() const;

Q_SIGNALS:
    void modelExported(bool ok, const QString& message);
    // The Predict window shows a new file's prediction (predictDialog()'s result and bars).
    void predictionShown();

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
};

}  // namespace nnwb
