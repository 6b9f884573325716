// Run > Predict's dialog: a price file read and the model run in the background (a PredictJob
// of app/core) fill the chart and the metrics; closing the dialog while the prediction runs
// drops its outcome without touching the dialog, and another dialog predicts as before.
#include <QPointer>
#include <QSignalSpy>
#include <QtTest>

#include "app/core/BackgroundJobs.h"
#include "common/TestUtil.h"
#include "model/NetworkWeights.h"
#include "model/TrainingSession.h"
#include "model/data/DataConfig.h"
#include "ui/PredictDialog.h"

using namespace nnwb;

class TestPredictDialog : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void closingThePredictDialogWhilePredicting() {
        nlohmann::json j = {
            {"formatVersion", 1},
            {"name", "predict test"},
            {"data", {{"file", defaultDataFile()}, {"window", 8}, {"validationShare", 0.2}}},
            {"model",
             {{"layers",
               {{{"type", "conv"}, {"window", 12}, {"step", 12}, {"filters", 4}},
                {{"type", "dense"}, {"neurons", 3}, {"activation", "sigmoid"}}}}}},
            {"training", {{"epochs", 1}, {"batchSize", 32}, {"seed", 7}, {"device", "cpu"}}}};
        const Experiment exp = Experiment::fromJson(j);
        TrainingSession session(exp);
        auto bundle = std::make_shared<const ModelBundle>(makeModelBundle(
            exp, session.data(), readWeights(session.network()), session.network().toJson(), 1));
        const QString file = QString::fromStdString(defaultDataFile());

        int delivered = 0;
        QPointer<PredictDialog> d = new PredictDialog(bundle, QStringLiteral("cpu"));
        d->setAttribute(Qt::WA_DeleteOnClose);
        connect(d, &PredictDialog::finished, qApp, [&delivered] { ++delivered; });
        d->show();
        d->predictFile(file);
        QVERIFY(d->busy());
        d->close();
        QTRY_VERIFY(d.isNull());  // gone while the prediction runs or its outcome waits
        QTRY_COMPARE_WITH_TIMEOUT(BackgroundJobs::instance().pending(), 0, 60000);
        QCoreApplication::processEvents();
        QCOMPARE(delivered, 0);

        // Another dialog predicts as before.
        PredictDialog again(bundle, QStringLiteral("cpu"));
        QSignalSpy done(&again, &PredictDialog::finished);
        again.predictFile(file);
        QVERIFY(done.wait(60000));
        QVERIFY2(done.first().at(0).toBool(), qPrintable(done.first().at(1).toString()));
        QVERIFY(!again.metricsText().isEmpty());
        QVERIFY(!again.busy());
    }
};

QTEST_MAIN(TestPredictDialog)
#include "tst_predict_dialog.moc"
