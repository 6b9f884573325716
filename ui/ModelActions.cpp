#include "ui/ModelActions.h"

#include <QAction>
#include <QMessageBox>
#include <QWidget>

#include "app/core/BackgroundJobs.h"
#include "app/core/CallQueue.h"
#include "app/core/ExperimentDocument.h"
#include "app/core/TrainingController.h"
#include "model/ensemble/EnsembleBundle.h"
#ifdef NNWB_HAS_ONNX
#include "app/export/EnsembleExport.h"
#endif
#include "ui/FileDialogs.h"
#include "ui/PredictDialog.h"

namespace nnwb {

ModelActions::ModelActions(TrainingController* controller, ExperimentDocument* doc, QWidget* window)
    : QObject(window),
      controller_(controller),
      doc_(doc),
      window_(window),
      calls_(std::make_shared<CallQueue>(this, "runQueuedCalls")) {
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
    // An ensemble the Training pane trained is the window's model, as one opened from the
    // Runs tab: the worker's copy of its bundle (the run's model file is the same bytes).
    connect(controller_, &TrainingController::ensembleKept, this, [this](const EnsembleKept& k) {
        if (!k.file.empty()) setEnsembleFile(QString::fromStdString(k.file));
    });
    // Trained or loaded weights are the window's model again.
    connect(controller_, &TrainingController::runStarted, this, [this] { setEnsembleFile({}); });
    connect(controller_, &TrainingController::weightsLoaded, this, [this](bool ok) {
        if (ok) setEnsembleFile({});
    });
}

ModelActions::~ModelActions() {
    calls_->close();
}

void ModelActions::runQueuedCalls() {
    calls_->run();
}

void ModelActions::setEnsembleFile(const QString& file) {
    if (file == ensembleFile_) return;
    ensembleFile_ = file;
    Q_EMIT ensembleChanged(!file.isEmpty());
}

void ModelActions::exportEnsembleOnnx(const QString& path) {
#ifdef NNWB_HAS_ONNX
    BackgroundJobs::instance().post(
        [calls = calls_, file = ensembleFile_.toStdString(), out = path.toStdString(), this] {
            QString error;
            try {
                onnxexport::exportEnsembleOnnx(file, out);
            } catch (const std::exception& e) {
                error = QString::fromStdString(e.what());
            }
            calls->post([this, error, out] {
                Q_EMIT onnxExported(error.isEmpty(),
                                    error.isEmpty() ? QString::fromStdString(out) : error);
            });
        });
#else
    (void)path;
    Q_EMIT onnxExported(false,
                        tr("This build has no ONNX export (configure with -DNNWB_ONNX=ON)."));
#endif
}

void ModelActions::exportEnsembleMql5(const QString& dir) {
#ifdef NNWB_HAS_ONNX
    BackgroundJobs::instance().post([calls = calls_, file = ensembleFile_.toStdString(),
                                     out = dir.toStdString(), trading = doc_->experiment().trading,
                                     this] {
        QString error, expert;
        try {
            expert = QString::fromStdString(
                onnxexport::exportEnsembleMql5(file, out, trading).expertPath);
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        calls->post([this, error, expert] {
            Q_EMIT mql5Exported(error.isEmpty(), error.isEmpty() ? expert : error);
        });
    });
#else
    (void)dir;
    Q_EMIT mql5Exported(false,
                        tr("This build has no ONNX export (configure with -DNNWB_ONNX=ON)."));
#endif
}

PredictDialog* ModelActions::predictDialog() const {
    return dialog_;
}

void ModelActions::exportModel(const QString& path) {
    if (!ensembleFile_.isEmpty()) {  // the ensemble's bundle, as the run store keeps it
        try {
            EnsembleBundle::load(ensembleFile_.toStdString()).save(path.toStdString());
            Q_EMIT modelExported(true, path);
        } catch (const std::exception& e) {
            QMessageBox::warning(window_, tr("Export model"), QString::fromStdString(e.what()));
            Q_EMIT modelExported(false, QString::fromStdString(e.what()));
        }
        return;
    }
    pending_ = Pending::Export;
    pendingPath_ = path;
    controller_->requestBundle();
}

void ModelActions::predictFile(const QString& file) {
    if (!ensembleFile_.isEmpty()) {
        predictWithEnsemble(ensembleFile_, file);
        return;
    }
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
    setEnsembleFile(ensembleFile);
    dialog_->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog_, &PredictDialog::finished, this, [this](bool ok) {
        if (ok) Q_EMIT predictionShown();  // the Trading tab trades it (with its agreement)
    });
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
