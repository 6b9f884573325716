#include "ui/ModelActions.h"

#include <QAction>
#include <QMessageBox>
#include <QWidget>

#include "app/core/ExperimentDocument.h"
#include "app/core/TrainingController.h"
#include "model/ensemble/EnsembleBundle.h"
#include "ui/FileDialogs.h"
#include "ui/PredictDialog.h"

namespace nnwb {

ModelActions::ModelActions(TrainingController* controller, ExperimentDocument* doc, QWidget* window)
    : QObject(window), controller_(controller), doc_(doc), window_(window) {
    export_ = new QAction(tr("Export &Model…"), this);
    export_->setObjectName(QStringLiteral("exportModelAction"));
    export_->setToolTip(
        tr("Save the trained model as a bundle: weights plus the data "
           "settings and statistics needed to apply it (nnwb-cli predict)"));
    predict_ = new QAction(tr("&Predict…"), this);
    predict_->setObjectName(QStringLiteral("predictAction"));
    predict_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
    predict_->setToolTip(tr("Apply the trained model to another price file"));
    connect(export_, &QAction::triggered, this, [this] {
        const QString path =
            saveFileName(window_, tr("Export model"), QStringLiteral("model.safetensors"),
                         tr("safetensors (*.safetensors)"));
        if (!path.isEmpty()) exportModel(path);
    });
    connect(predict_, &QAction::triggered, this, [this] { predictFile(QString()); });
    connect(controller_, &TrainingController::bundleReady, this, &ModelActions::onBundle);
}

PredictDialog* ModelActions::predictDialog() const {
    return dialog_;
}

void ModelActions::exportModel(const QString& path) {
    pending_ = Pending::Export;
    pendingPath_ = path;
    controller_->requestBundle();
}

void ModelActions::predictFile(const QString& file) {
    pending_ = Pending::Predict;
    pendingPath_ = file;
    controller_->requestBundle();
}

bool ModelActions::predictWithEnsemble(const QString& ensembleFile, const QString& file) {
    std::shared_ptr<const EnsembleBundle> ensemble;
    try {
        ensemble = std::make_shared<const EnsembleBundle>(
            EnsembleBundle::load(ensembleFile.toStdString()));
    } catch (const std::exception& e) {
        QMessageBox::warning(window_, tr("Predict"), QString::fromStdString(e.what()));
        return false;
    }
    if (dialog_) dialog_->close();
    dialog_ = new PredictDialog(std::make_shared<const ModelBundle>(ensemble->common),
                                QString::fromStdString(doc_->experiment().training.device), window_,
                                doc_->experiment().trading);
    dialog_->setEnsemble(ensemble);
    dialog_->setAttribute(Qt::WA_DeleteOnClose);
    dialog_->show();
    if (file.isEmpty())
        dialog_->openFileDialog();
    else
        dialog_->predictFile(file);
    return true;
}

void ModelActions::onBundle(std::shared_ptr<const ModelBundle> bundle, const QString& error) {
    const Pending what = pending_;
    pending_ = Pending::None;
    if (what == Pending::None) return;
    const QString title = what == Pending::Export ? tr("Export model") : tr("Predict");
    if (!bundle) {
        QMessageBox::warning(window_, title, error);
        if (what == Pending::Export) Q_EMIT modelExported(false, error);
        return;
    }
    if (what == Pending::Export) {
        try {
            bundle->save(pendingPath_.toStdString());
            Q_EMIT modelExported(true, pendingPath_);
        } catch (const std::exception& e) {
            QMessageBox::warning(window_, title, QString::fromStdString(e.what()));
            Q_EMIT modelExported(false, QString::fromStdString(e.what()));
        }
        return;
    }
    if (dialog_) dialog_->close();
    dialog_ = new PredictDialog(bundle, QString::fromStdString(doc_->experiment().training.device),
                                window_, doc_->experiment().trading);
    dialog_->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog_, &PredictDialog::finished, this, [this](bool ok) {
        if (ok) Q_EMIT predictionShown();
    });
    dialog_->show();
    if (pendingPath_.isEmpty())
        dialog_->openFileDialog();
    else
        dialog_->predictFile(pendingPath_);
}

}  // namespace nnwb
