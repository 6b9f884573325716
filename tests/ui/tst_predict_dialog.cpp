// Run > Predict's dialog: a price file read and the model run in the background (a PredictJob
// of app/core) fill the chart and the metrics; closing the dialog while the prediction runs
// drops its outcome without touching the dialog, and another dialog predicts as before.
// While a file is predicted the dialog shows the rows done of all and offers Cancel, which
// stops the work at its next batch; Export CSV is off then, so the previous file's rows are
// never written while another file is on its way (issue 24, part 4). A file of another
// instrument than the model's training file is warned about (issue 41: it said nothing).
// The result has the trading of the predicted signals under the rules the dialog was given (the
// experiment's): the verdict line, the figures table and the equity curve with its trades, the
// curve at least 150 px tall in a 1240×660 dialog (issue 43, item 4: it had none).
#include <QFile>
#include <QLabel>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QtTest>

#include "app/core/BackgroundJobs.h"
#include "app/core/PredictJob.h"
#include "common/TestUtil.h"
#include "common/UntrainedBundle.h"
#include "model/FigureText.h"
#include "model/NetworkWeights.h"
#include "model/TrainingSession.h"
#include "model/data/DataConfig.h"
#include "model/trading/Verdict.h"
#include "ui/EquityChart.h"
#include "ui/Plot.h"
#include "ui/PredictDialog.h"
#include "ui/PriceChart.h"
#include "ui/TradingTable.h"

using namespace nnwb;

namespace {
template <typename T>
T* child(QObject* parent, const char* name) {
    T* w = parent->findChild<T*>(QLatin1String(name));
    if (!w) qFatal("no child %s", name);
    return w;
}
}  // namespace

class TestPredictDialog : public QObject {
    Q_OBJECT
    std::shared_ptr<const ModelBundle> bundle_;
    QString file_;

private Q_SLOTS:
    void initTestCase() {
        bundle_ = test::untrainedBundle("predict test");
        file_ = QString::fromStdString(defaultDataFile());
    }

    void closingThePredictDialogWhilePredicting() {
        int delivered = 0;
        QPointer<PredictDialog> d = new PredictDialog(bundle_, QStringLiteral("cpu"));
        d->setAttribute(Qt::WA_DeleteOnClose);
        connect(d, &PredictDialog::finished, qApp, [&delivered] { ++delivered; });
        d->show();
        d->predictFile(file_);
        QVERIFY(d->busy());
        d->close();
        QTRY_VERIFY(d.isNull());  // gone while the prediction runs or its outcome waits
        QTRY_COMPARE_WITH_TIMEOUT(BackgroundJobs::instance().pending(), 0, 60000);
        QCoreApplication::processEvents();
        QCOMPARE(delivered, 0);

        // Another dialog predicts as before.
        PredictDialog again(bundle_, QStringLiteral("cpu"));
        QSignalSpy done(&again, &PredictDialog::finished);
        again.predictFile(file_);
        QVERIFY(done.wait(60000));
        QVERIFY2(done.first().at(0).toBool(), qPrintable(done.first().at(1).toString()));
        QVERIFY(!again.metricsText().isEmpty());
        QVERIFY(!again.busy());
    }

    // The work itself stops at the check point after the batch during which it was cancelled.
    void cancelledWorkStopsAtTheNextBatch() {
        std::atomic<bool> cancelled{false};
        int calls = 0;
        size_t total = 0;
        const PredictOutcome o = predictPriceFile(
            *bundle_, "cpu", file_.toStdString(), cancelled, [&](size_t, size_t all) {
                ++calls;
                total = all;
                cancelled = true;  // as Cancel does from the GUI thread
            });
        QVERIFY(!o.ok);
        QCOMPARE(o.error, QStringLiteral("cancelled"));
        QVERIFY2(total > size_t(10 * bundle_->batchSize), "too few rows to tell");
        QCOMPARE(calls, 1);
        QVERIFY(!o.result);
    }

    // The progress bar counts the rows of the file; Cancel is offered only while it runs.
    void anotherInstrumentIsWarned() {
        QVERIFY(otherInstrumentWarning("EURUSD_H1_2017-2018.csv", "eurusd.csv").isEmpty());
        QVERIFY(otherInstrumentWarning("", "XAUUSD_H1.csv").isEmpty());
        const QString other = QString::fromStdString(test::tempDir()) + "/XAUUSD_H1.csv";
        QVERIFY(QFile::copy(file_, other));
        for (const QString& path : {file_, other}) {
            PredictDialog d(bundle_, QStringLiteral("cpu"));
            QSignalSpy done(&d, &PredictDialog::finished);
            d.predictFile(path);
            QVERIFY(done.wait(60000));
            QVERIFY(done.first().at(0).toBool());
            const QString status = child<QLabel>(&d, "predictStatus")->text();
            const bool warned = status.contains(QStringLiteral("trained on EURUSD"));
            QVERIFY2(warned == (path == other), qPrintable(status));
            if (path == other) QVERIFY2(status.contains("XAUUSD"), qPrintable(status));
        }
    }

    void progressShowsTheRowsDone() {
        PredictDialog d(bundle_, QStringLiteral("cpu"));
        d.show();
        auto* bar = child<QProgressBar>(&d, "predictProgress");
        auto* cancel = child<QPushButton>(&d, "predictCancel");
        QVERIFY(!bar->isVisible() && !cancel->isVisible());
        QSignalSpy done(&d, &PredictDialog::finished);
        QSignalSpy values(bar, &QProgressBar::valueChanged);
        d.predictFile(file_);
        QVERIFY(bar->isVisible() && cancel->isVisible() && cancel->isEnabled());
        QVERIFY(done.wait(60000));
        QVERIFY(done.first().at(0).toBool());
        QVERIFY(!bar->isVisible() && !cancel->isVisible());
        const QString status = child<QLabel>(&d, "predictStatus")->text();
        // "<file>: N bars, R with a full window, L labelled": the bar ended at R of R rows.
        // The counts grouped, as every count of the window ("1,140", not "1140").
        const QRegularExpression rows(QStringLiteral("([\\d,]+) with a full window"));
        const auto m = rows.match(status);
        QVERIFY2(m.hasMatch(), qPrintable(status));
        const QString grouped = QString::fromStdString(groupedCount(bar->maximum()));
        QCOMPARE(m.captured(1), grouped);
        QCOMPARE(bar->value(), bar->maximum());
        QVERIFY(!values.isEmpty());
        QVERIFY2(bar->format().contains(QStringLiteral("%1 of %1 rows").arg(grouped)),
                 qPrintable(bar->format()));
    }

    void resultShowsTheTrading() {
        double net[2] = {0, 0};
        size_t trades[2] = {0, 0};
        for (int i = 0; i < 2; ++i) {
            TradingSettings rules;
            rules.spreadSource = "given";
            rules.spreadPoints = i == 0 ? 0.0 : 30.0;
            PredictDialog d(bundle_, QStringLiteral("cpu"), nullptr, rules);
            d.resize(1240, 660);  // a 1280×720 screen less a window manager's frame
            d.show();
            QVERIFY(QTest::qWaitForWindowExposed(&d));
            QVERIFY(!d.tradingReport());
            QSignalSpy done(&d, &PredictDialog::finished);
            d.predictFile(file_);
            QVERIFY(done.wait(60000));
            QVERIFY(done.first().at(0).toBool());
            const TradingReport* t = d.tradingReport();
            QVERIFY2(t, qPrintable(d.verdictText()));
            QCOMPARE(t->spreadPoints, rules.spreadPoints);
            QVERIFY2(!t->trades.empty(), "the model never traded: nothing to show");
            trades[i] = t->trades.size();
            net[i] = t->strategy.netPoints;
            QCOMPARE(d.tradingTable()->cell(0, 0),
                     QString::fromStdString(groupedCount(int64_t(t->trades.size()))));
            QCOMPARE(d.tradingTable()->cell(0, 3),
                     QString::fromStdString(groupedFixed(t->strategy.netPoints, 1)));
            QCOMPARE(d.tradingTable()->cell(1, 3),
                     QString::fromStdString(groupedFixed(t->buyAndHold.netPoints, 1)));
            // The verdict line is the model's sentence for these figures.
            const QString verdict = QString::fromStdString(tradingVerdict(verdictFigures(*t)));
            QVERIFY2(d.verdictText().contains(verdict), qPrintable(d.verdictText()));
            EquityChart* equity = d.equityChart();
            QCOMPARE(equity->curvePoints(), t->equity.bar.size());
            QCOMPARE(equity->entryMarks(), t->trades.size());
            QTest::qWait(50);
            equity->plot()->replot();
            const int plot = equity->plot()->axisRect()->rect().height();
            QVERIFY2(plot >= 150, qPrintable(QString("equity plot %1 px").arg(plot)));
        }
        // The rules reach the evaluation: the same trades cost more with a spread.
        QCOMPARE(trades[1], trades[0]);
        QVERIFY2(net[1] < net[0], qPrintable(QString("%1 vs %2").arg(net[1]).arg(net[0])));
    }

    // Export writes only the rows of the file on show, never while another file runs; Cancel
    // keeps the previous file's chart and rows, and says so.
    void exportAndCancelWhileAnotherFileRuns() {
        const QString copy = QString::fromStdString(test::tempDir()) + "/other.csv";
        QVERIFY(QFile::copy(file_, copy));
        PredictDialog d(bundle_, QStringLiteral("cpu"));
        d.show();
        auto* exportButton = child<QPushButton>(&d, "predictExport");
        auto* cancel = child<QPushButton>(&d, "predictCancel");
        auto* status = child<QLabel>(&d, "predictStatus");
        QVERIFY(!exportButton->isEnabled());  // nothing predicted yet
        QSignalSpy done(&d, &PredictDialog::finished);
        d.predictFile(file_);
        QVERIFY(done.wait(60000));
        QCOMPARE(d.shownPath(), file_);
        QVERIFY(exportButton->isEnabled());

        d.predictFile(copy);
        QVERIFY(d.busy());
        QVERIFY(!exportButton->isEnabled());
        QString error;
        const QString out = QString::fromStdString(test::tempDir()) + "/rows.csv";
        QVERIFY(!d.exportCsv(out, &error));
        QVERIFY2(error.contains(QStringLiteral("other.csv")), qPrintable(error));
        QVERIFY(!QFile::exists(out));

        QTest::mouseClick(cancel, Qt::LeftButton);
        QVERIFY(!d.busy());
        QVERIFY(!cancel->isVisible());
        QVERIFY2(status->text().contains(QStringLiteral("Cancelled")), qPrintable(status->text()));
        QCOMPARE(d.shownPath(), file_);  // the previous file's chart and rows stay
        QVERIFY(exportButton->isEnabled());
        QTRY_COMPARE_WITH_TIMEOUT(BackgroundJobs::instance().pending(), 0, 60000);
        QCoreApplication::processEvents();
        QCOMPARE(done.count(), 1);  // the cancelled prediction reports nothing
        QVERIFY(d.exportCsv(out, &error));

        // The other file, run to the end, becomes the file on show.
        d.predictFile(copy);
        QVERIFY(done.wait(60000));
        QCOMPARE(d.shownPath(), copy);
        QVERIFY(exportButton->isEnabled());
    }
};

QTEST_MAIN(TestPredictDialog)
#include "tst_predict_dialog.moc"
