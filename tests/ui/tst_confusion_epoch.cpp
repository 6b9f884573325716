// GUI: the confusion matrix shows the epoch the heatmaps' "latest / best epoch" picker names
// (issue 24, part 4): it always showed the latest epoch, also with "best epoch" picked.
#include <QComboBox>
#include <QLabel>
#include <QTableWidget>
#include <QtTest>

#include "app/core/TrainingController.h"
#include "ui/ConfusionTable.h"
#include "ui/MainWindow.h"

using namespace nnwb;

namespace {
EpochReport report(int epoch, int best) {
    EpochReport r;
    r.epoch = epoch;
    r.bestEpoch = best;
    r.isBest = epoch == best;
    r.taskMetrics = true;
    r.train.samples = 100;
    r.train.confusion[0][0] = 10 * epoch;  // tells the epochs apart in the table
    return r;
}
}  // namespace

class TestConfusionEpoch : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void followsTheBestLatestPicker() {
        MainWindow w;
        w.setConfirmDiscard(false);
        w.show();
        auto* caption = w.confusionTable()->findChild<QLabel*>(QStringLiteral("confusionCaption"));
        auto* picker = w.findChild<QComboBox*>(QStringLiteral("attentionWeights"));
        QVERIFY(caption && picker);
        // A run's epochs as the controller reports them: epoch 2 stays the best.
        TrainingController* c = w.controller();
        for (int e = 1; e <= 4; ++e) Q_EMIT c->epochFinished(report(e, std::min(e, 2)));
        QVERIFY2(caption->text().endsWith(QStringLiteral("epoch 4")), qPrintable(caption->text()));
        picker->setCurrentIndex(1);  // best epoch
        QVERIFY2(caption->text().endsWith(QStringLiteral("epoch 2")), qPrintable(caption->text()));
        QCOMPARE(w.confusionTable()->table()->item(0, 0)->text().section(QLatin1Char('\n'), 0, 0),
                 QStringLiteral("20"));
        // A later epoch that is not better leaves the best one on show.
        Q_EMIT c->epochFinished(report(5, 2));
        QVERIFY2(caption->text().endsWith(QStringLiteral("epoch 2")), qPrintable(caption->text()));
        Q_EMIT c->epochFinished(report(6, 6));
        QVERIFY2(caption->text().endsWith(QStringLiteral("epoch 6")), qPrintable(caption->text()));
        Q_EMIT c->epochFinished(report(7, 6));
        picker->setCurrentIndex(0);  // latest epoch
        QVERIFY2(caption->text().endsWith(QStringLiteral("epoch 7")), qPrintable(caption->text()));
    }
};

QTEST_MAIN(TestConfusionEpoch)
#include "tst_confusion_epoch.moc"
