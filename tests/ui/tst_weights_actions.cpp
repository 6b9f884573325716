// GUI: the weights' actions say and offer only what holds (issue 24, part 4): Export
// Weights, ONNX, Export Model and Predict are disabled until there are trained or loaded
// weights (Export Weights asked for a file name before saying there were none), and after
// Model > Load Weights the Train question does not promise the optimizer state and epoch
// numbering that loading does not keep.
#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QMessageBox>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "app/core/ExperimentDocument.h"
#include "app/core/TrainingController.h"
#include "common/TestUtil.h"
#include "ui/MainWindow.h"
#include "ui/ModelActions.h"

using namespace nnwb;

namespace {
QAction* action(MainWindow& w, const QString& text) {
    for (QAction* a : w.findChildren<QAction*>())
        if (a->text().remove(QLatin1Char('&')) == text) return a;
    return nullptr;
}
}  // namespace

class TestWeightsActions : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QCoreApplication::setOrganizationName(QStringLiteral("nnwb-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_weights_actions"));
    }

    void disabledUntilThereAreWeights() {
        MainWindow w;
        w.setConfirmDiscard(false);
        w.document()->reset(Experiment::fromJson(test::tinyExperimentJson(1)));
        w.show();
        QAction* exportWeights = action(w, QStringLiteral("Export Weights…"));
        QAction* onnx = w.findChild<QAction*>(QStringLiteral("exportOnnxAction"));
        QVERIFY(exportWeights && onnx);
        const QList<QAction*> actions = {exportWeights, onnx, w.modelActions()->exportAction(),
                                         w.modelActions()->predictAction()};
        for (QAction* a : actions)
            QVERIFY2(!a->isEnabled(), qPrintable(a->text() + " is enabled without weights"));
        QSignalSpy finished(w.controller(), &TrainingController::runFinished);
        QVERIFY(w.startTraining());
        QVERIFY(finished.wait(60000));
        for (QAction* a : actions)
            QVERIFY2(a->isEnabled(), qPrintable(a->text() + " is disabled after a run"));
    }

    void loadedWeightsPromiseNoOptimizerState() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("w.safetensors"));
        {
            MainWindow w;
            w.setConfirmDiscard(false);
            w.document()->reset(Experiment::fromJson(test::tinyExperimentJson(1)));
            QSignalSpy finished(w.controller(), &TrainingController::runFinished);
            QVERIFY(w.startTraining());
            QVERIFY(finished.wait(60000));
            QSignalSpy saved(w.controller(), &TrainingController::weightsSaved);
            w.controller()->saveWeights(path);
            QVERIFY(saved.wait(20000));
            QVERIFY(saved.first().at(0).toBool());
        }
        MainWindow w;
        w.setConfirmDiscard(false);
        w.document()->reset(Experiment::fromJson(test::tinyExperimentJson(1)));
        w.show();
        QSignalSpy loaded(w.controller(), &TrainingController::weightsLoaded);
        w.loadWeights(path);
        QVERIFY(loaded.wait(20000));
        QVERIFY2(loaded.first().at(0).toBool(), qPrintable(loaded.first().at(1).toString()));
        QVERIFY(w.canContinue());
        QString asked;
        QTimer::singleShot(100, this, [&asked] {
            auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            if (!box) return;
            asked = box->text();
            box->button(QMessageBox::Cancel)->click();
        });
        w.trainRequested();
        QVERIFY(!asked.isEmpty());
        QVERIFY2(!asked.contains(QStringLiteral("keeping the optimizer state")), qPrintable(asked));
        QVERIFY2(!asked.contains(QStringLiteral("epoch numbering")), qPrintable(asked));
        QVERIFY2(asked.contains(QStringLiteral("fresh optimizer")), qPrintable(asked));
        QVERIFY(!w.controller()->isBusy());
    }
};

QTEST_MAIN(TestWeightsActions)
#include "tst_weights_actions.moc"
