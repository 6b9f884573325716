#include "ui/ExportActions.h"

#include <QAction>
#include <QMainWindow>
#include <QStatusBar>
#include <QStyle>

#include "app/core/TrainingController.h"
#include "ui/FileDialogs.h"
#include "ui/ModelActions.h"

namespace nnwb {

ExportActions::ExportActions(TrainingController* controller, ModelActions* model,
                             QMainWindow* window,
                             std::function<void(const QString&, const QString&)> showError)
    : QObject(window),
      controller_(controller),
      model_(model),
      window_(window),
      showError_(std::move(showError)) {
    const QIcon icon = window->style()->standardIcon(QStyle::SP_DriveHDIcon);
    weights_ = new QAction(icon, tr("Export &Weights…"), window);
    weights_->setToolTip(tr("Save the trained weights"));
    onnx_ = new QAction(icon, tr("&ONNX…"), window);
    onnx_->setToolTip(
        tr("Export the trained model as ONNX for MetaTrader 5: raw features in, "
           "none/buy/sell scores out"));
    onnx_->setObjectName(QStringLiteral("exportOnnxAction"));
    mql5_ = new QAction(icon, tr("Export for &MetaTrader 5…"), window);
    mql5_->setToolTip(
        tr("Write model.onnx and the Expert Advisor nnwb_expert.mq5 that computes the model's "
           "features from the terminal's bars and trades its signals under the experiment's "
           "trading rules into a folder (nnwb-cli export --mql5 DIR). A live account differs "
           "from nnwb's simulation: fills at real ticks, the spread of the moment, stops on "
           "the price grid, swap, commission, margin"));
    mql5_->setObjectName(QStringLiteral("exportMql5Action"));
    for (QAction* a : {weights_, onnx_, mql5_}) {
        a->setStatusTip(a->toolTip());
        a->setEnabled(false);  // until there are trained or loaded weights
    }
    connect(weights_, &QAction::triggered, this, [this] {
        const QString path =
            saveFileName(window_, tr("Export weights"), QStringLiteral("weights.safetensors"),
                         tr("safetensors (*.safetensors)"));
        if (!path.isEmpty()) controller_->saveWeights(path);
    });
    connect(onnx_, &QAction::triggered, this, [this] {
        const QString path = saveFileName(window_, tr("Export ONNX model"),
                                          QStringLiteral("model.onnx"), tr("ONNX (*.onnx)"));
        if (path.isEmpty()) return;
        if (!model_->ensembleFile().isEmpty())  // an opened ensemble: one graph of its members
            model_->exportEnsembleOnnx(path);
        else
            controller_->exportOnnx(path, 1);  // batch 1: one bar per call
    });
    connect(mql5_, &QAction::triggered, this, [this] {
        const QString dir = existingDirectory(window_, tr("Export for MetaTrader 5: folder"), {});
        if (dir.isEmpty()) return;
        if (!model_->ensembleFile().isEmpty())
            model_->exportEnsembleMql5(dir);
        else
            controller_->exportMql5(dir);
    });
    connect(model_, &ModelActions::ensembleChanged, this, [this] { setHaveWeights(haveWeights_); });
    connectOutcomes();
}

void ExportActions::connectOutcomes() {
    // Export Model's failures are said by ModelActions (a message box); its success here.
    connect(model_, &ModelActions::modelExported, this, [this](bool ok, const QString& path) {
        if (ok) window_->statusBar()->showMessage(tr("Model written to %1").arg(path), 6000);
    });
    connect(controller_, &TrainingController::weightsSaved, this,
            [this](bool ok, const QString& message) {
                if (ok)
                    window_->statusBar()->showMessage(tr("Weights saved to %1").arg(message), 6000);
                else
                    showError_(tr("Export weights"), message);
            });
    auto onnx = [this](bool ok, const QString& message) {
        if (ok)
            window_->statusBar()->showMessage(tr("ONNX model written to %1").arg(message), 6000);
        else
            showError_(tr("Export ONNX"), message);
    };
    connect(controller_, &TrainingController::onnxExported, this, onnx);
    connect(model_, &ModelActions::onnxExported, this, onnx);  // an ensemble's
    auto mql5 = [this](bool ok, const QString& message) {
        if (ok)
            window_->statusBar()->showMessage(
                tr("MetaTrader 5 expert written to %1 (with model.onnx beside it). It "
                   "trades the experiment's trading rules; fills at real ticks, the "
                   "spread of the moment, swap, commission and margin differ in a live "
                   "account (the file's header lists them)")
                    .arg(message),
                20000);
        else
            showError_(tr("Export for MetaTrader 5"), message);
    };
    connect(controller_, &TrainingController::mql5Exported, this, mql5);
    connect(model_, &ModelActions::mql5Exported, this, mql5);
}

void ExportActions::setHaveWeights(bool have) {
    haveWeights_ = have;
    // An opened ensemble is the model: exported and predicted, but no one network's weights.
    const bool ensemble = !model_->ensembleFile().isEmpty();
    const QString why = tr("Train or load weights first");
    QAction* actions[] = {onnx_, mql5_, model_->exportAction(), model_->predictAction()};
    for (QAction* a : actions) {
        a->setEnabled(have || ensemble);
        a->setStatusTip(have || ensemble ? a->toolTip() : why);
    }
    weights_->setEnabled(have && !ensemble);
    weights_->setStatusTip(ensemble ? tr("An ensemble is no one network's weights: Export Model "
                                         "saves its bundle")
                           : have   ? weights_->toolTip()
                                    : why);
}

}  // namespace nnwb
