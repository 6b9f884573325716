// GUI: messages go with their cause (issue 24, part 4): a failed Load Weights' error goes
// when a later load succeeds; the Data pane's error about a price file goes when undo takes
// back the change that named the file.
#include <QApplication>
#include <QLabel>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include "app/core/ExperimentDocument.h"
#include "app/core/TrainingController.h"
#include "common/TestUtil.h"
#include "ui/DataPanel.h"
#include "ui/MainWindow.h"

using namespace nnwb;

class TestErrorBanners : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QCoreApplication::setOrganizationName(QStringLiteral("nnwb-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_error_banners"));
    }

    void failedLoadErrorGoesAfterAGoodLoad() {
        QTemporaryDir dir;
        const QString good = dir.filePath(QStringLiteral("w.safetensors"));
        MainWindow w;
        w.setConfirmDiscard(false);
        w.document()->reset(Experiment::fromJson(test::tinyExperimentJson(1)));
        w.show();
        QSignalSpy finished(w.controller(), &TrainingController::runFinished);
        QVERIFY(w.startTraining());
        QVERIFY(finished.wait(60000));
        QSignalSpy saved(w.controller(), &TrainingController::weightsSaved);
        w.controller()->saveWeights(good);
        QVERIFY(saved.wait(20000));
        QVERIFY(saved.first().at(0).toBool());

        auto* banner = w.findChild<QLabel*>(QStringLiteral("errorBanner"));
        QVERIFY(banner);
        QSignalSpy loaded(w.controller(), &TrainingController::weightsLoaded);
        w.loadWeights(dir.filePath(QStringLiteral("missing.safetensors")));
        QVERIFY(loaded.wait(20000));
        QVERIFY(!loaded.last().at(0).toBool());
        QVERIFY(banner->isVisible());
        w.loadWeights(good);
        QVERIFY(loaded.wait(20000));
        QVERIFY2(loaded.last().at(0).toBool(), qPrintable(loaded.last().at(1).toString()));
        QVERIFY2(!banner->isVisible(), qPrintable(banner->text()));
    }

    void dataErrorGoesWithTheUndoOfItsCause() {
        QTemporaryDir dir;
        MainWindow w;
        w.setConfirmDiscard(false);
        w.document()->reset(Experiment::fromJson(test::tinyExperimentJson(1)));  // synthetic
        w.show();
        QVERIFY(w.dataPanel()->errorText().isEmpty());
        QSignalSpy inspected(w.dataPanel(), &DataPanel::priceFileInspected);
        nlohmann::json d = w.document()->experiment().data;
        d = {{"source", "file"},
             {"file", dir.filePath(QStringLiteral("missing.csv")).toStdString()},
             {"window", 6}};
        w.document()->setData(d);
        QVERIFY(inspected.wait(20000));
        QVERIFY(w.dataPanel()->errorText().contains(QStringLiteral("missing.csv")));
        w.document()->undoStack()->undo();  // back to the synthetic data
        QCOMPARE(w.document()->experiment().data.value("source", std::string()), "synthetic");
        QVERIFY2(w.dataPanel()->errorText().isEmpty(), qPrintable(w.dataPanel()->errorText()));
    }
};

QTEST_MAIN(TestErrorBanners)
#include "tst_error_banners.moc"
