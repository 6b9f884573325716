// GUI: the confusion matrix shows the epoch the heatmaps' "latest / best epoch" picker names
// (issue 24, part 4): it always showed the latest epoch, also with "best epoch" picked. A run's
// model opened from the Runs tab in a window that has trained nothing shows the run's
// validation counts under "validation" (issue 41: it showed the training counts). At its
// minimum width the matrix has room for "100.0 %" in each column. The note under it is whole
// at 1280x720 and 1024x600 (it wraps; it was cut with "…").
#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QStyle>
#include <QTableWidget>
#include <QtTest>

#include "app/core/ExperimentDocument.h"
#include "app/core/TrainingController.h"
#include "app/runs/RunStore.h"
#include "common/TestUtil.h"
#include "model/FigureText.h"
#include "ui/ConfusionTable.h"
#include "ui/MainWindow.h"
#include "ui/RunsView.h"

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
    // The note under the matrix is whole and every line of it in sight at laptop sizes (it was
    // cut to "rows: actual · columns: predicted" with "…" at 1280x720): it wraps.
    void noteIsWholeAtLaptopSizes_data() {
        QTest::addColumn<QSize>("screen");
        QTest::newRow("1280x720") << QSize(1280, 720);
        QTest::newRow("1024x600") << QSize(1024, 600);
    }
    void noteIsWholeAtLaptopSizes() {
        QFETCH(QSize, screen);
        MainWindow w;
        w.setConfirmDiscard(false);
        w.resize(MainWindow::defaultSize(screen));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* note = w.confusionTable()->findChild<QLabel*>(QStringLiteral("confusionNote"));
        QVERIFY(note);
        QTRY_VERIFY(note->isVisible() && note->width() > 0);
        QCoreApplication::processEvents();
        QCOMPARE(note->text(), QStringLiteral("rows: actual · columns: predicted · shade: share "
                                              "of the row"));
        const QRect room = note->contentsRect();
        const QRect needed =
            QFontMetrics(note->font())
                .boundingRect(QRect(0, 0, room.width(), 10000), Qt::TextWordWrap, note->text());
        QVERIFY2(needed.width() <= room.width() && needed.height() <= room.height(),
                 qPrintable(QStringLiteral("needs %1x%2, has %3x%4")
                                .arg(needed.width())
                                .arg(needed.height())
                                .arg(room.width())
                                .arg(room.height())));
    }

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

    // At its minimum width the matrix has room for a whole "100.0 %" in each column, whatever
    // the font: the pane's minimum was a fixed 200 px, and at 1024x600 under Xvfb its cells
    // read "100.0…". Checked with a font 1.5 times the default.
    void aWholeShareFitsAtThePanesMinimum() {
        QWidget holder;
        QFont big = holder.font();
        big.setPointSizeF(big.pointSizeF() * 1.5);
        holder.setFont(big);
        auto* pane = new ConfusionTable(&holder);
        EpochReport r = report(1, 1);
        r.validation = r.train;  // one class: a share of 100.0 %
        pane->setReport(r, true);
        pane->resize(pane->minimumWidth(), 300);
        holder.show();
        QVERIFY(QTest::qWaitForWindowExposed(&holder));
        QTableWidget* t = pane->table();
        QCOMPARE(t->item(0, 0)->text().section(QLatin1Char('\n'), 1), QStringLiteral("100.0 %"));
        const int margin =
            2 * (t->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, t) + 1);
        const int need = t->fontMetrics().horizontalAdvance(QStringLiteral("100.0 %")) + margin;
        for (int c = 0; c < t->columnCount(); ++c)
            QVERIFY2(t->columnWidth(c) >= need,
                     qPrintable(QString("column %1: %2 px at the pane's minimum of %3 px, %4 "
                                        "needed for \"100.0 %\"")
                                    .arg(c)
                                    .arg(t->columnWidth(c))
                                    .arg(pane->minimumWidth())
                                    .arg(need)));
    }

    void anOpenedModelShowsItsValidationCounts() {
        const std::string db = test::tempDir() + "/runs.sqlite";
        {
            MainWindow trainer;
            trainer.setConfirmDiscard(false);
            trainer.setRunsDatabase(QString::fromStdString(db), true);
            trainer.document()->reset(Experiment::fromJson(test::tinyExperimentJson(2)));
            QSignalSpy finished(trainer.controller(), &TrainingController::runFinished);
            QVERIFY(trainer.startTraining(2));
            QVERIFY(finished.wait(60000));
        }
        RunStore store(db, false);
        const auto runs = store.list();
        QCOMPARE(runs.size(), size_t(1));
        const StoredRun run = *store.get(runs[0].id);
        QVERIFY(run.hasValidation());
        const StoredBundle* best = run.bundle("best");
        QVERIFY(best);
        const EpochMetrics& v = run.epochs[size_t(best->epoch - 1)].report.validation;
        const EpochMetrics& t = run.epochs[size_t(best->epoch - 1)].report.train;
        QVERIFY(v.confusion[0][0] != t.confusion[0][0]);  // the parts tell apart

        // A second window session: nothing trained, Open Model on the run.
        MainWindow w;
        w.setConfirmDiscard(false);
        w.setRunsDatabase(QString::fromStdString(db), true);
        w.show();
        w.showRuns();
        w.runsView()->refresh();
        w.runsView()->selectIds({run.id});
        auto* open = w.runsView()->findChild<QPushButton*>("runsOpenModel");
        QTRY_VERIFY(open->isEnabled());
        QSignalSpy loaded(w.controller(), &TrainingController::weightsLoaded);
        open->click();
        QVERIFY(loaded.wait(30000));
        QVERIFY(loaded.first().at(0).toBool());
        auto* part = w.confusionTable()->findChild<QComboBox*>();
        QCOMPARE(part->currentText(), QStringLiteral("validation"));
        const QString cell =
            w.confusionTable()->table()->item(0, 0)->text().section(QLatin1Char('\n'), 0, 0);
        QCOMPARE(cell, QString::fromStdString(groupedCount(v.confusion[0][0])));
    }
};

QTEST_MAIN(TestConfusionEpoch)
#include "tst_confusion_epoch.moc"
