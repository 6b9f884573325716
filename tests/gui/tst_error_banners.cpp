// GUI: messages go with their cause (issue 24, part 4): a failed Load Weights' error goes
// when a later load succeeds, and the Comparison tab's "Saved …" does not stay on show after
// Open Set (it said the set had been saved when another one had been opened).
#include <QApplication>
#include <QFileDialog>
#include <QLabel>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "app/core/ComparisonController.h"
#include "app/core/ExperimentDocument.h"
#include "app/core/TrainingController.h"
#include "common/TestUtil.h"
#include "ui/ComparisonView.h"
#include "ui/MainWindow.h"

using namespace nnwb;

namespace {
// Answers the next file dialog with `path`.
void answerFileDialog(QObject* context, const QString& path) {
    QTimer::singleShot(200, context, [path] {
        auto* d = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
        if (!d) return;
        d->selectFile(path);
        d->accept();
    });
}
}  // namespace

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

    void savedMessageGoesWithOpenSet() {
        QTemporaryDir dir;
        MainWindow w;
        w.setConfirmDiscard(false);
        w.setRunStore(QString(), false);
        w.show();
        ComparisonView* view = w.comparisonView();
        w.showComparison();
        QString error;
        for (const char* preset : {"mql5-fractal-5x8", "attention-single-head"})
            QVERIFY2(view->addFromFileOrPreset(QLatin1String(preset), QString(), &error),
                     qPrintable(error));
        const QString set = dir.filePath(QStringLiteral("set.json"));
        answerFileDialog(this, set);
        view->saveSetDialog();
        QTRY_VERIFY(QFile::exists(set));
        auto* message = view->findChild<QLabel*>(QStringLiteral("comparisonMessage"));
        QVERIFY(message);
        QVERIFY(message->text().startsWith(QStringLiteral("Saved")));
        answerFileDialog(this, set);
        view->openSetDialog();
        QTest::qWait(50);
        QVERIFY2(!message->isVisible() || !message->text().startsWith(QStringLiteral("Saved")),
                 qPrintable(message->text()));
    }
};

QTEST_MAIN(TestErrorBanners)
#include "tst_error_banners.moc"
