// GUI: what a price file cannot give is shown when it is loaded (issue 24, part 3). A 19-bar
// file: the Data pane says "needs at least 54 bars, file has 19" and Train is disabled with it;
// the whole bundled file enables Train again. The bundled EURUSD file has tick volume 0 on every
// bar: opening it leaves tickVolume off and the pane names it; switching it on keeps the warning
// ("this experiment uses it"). A failing file's error does not outlast a good file opened after
// it, also when the failing one is still being read (issue 41).
#include <QAction>
#include <QCheckBox>
#include <QLabel>
#include <QTemporaryDir>
#include <QtTest>

#include "app/core/ExperimentDocument.h"
#include "model/Experiment.h"
#include "nnwb/TestPaths.h"
#include "ui/DataPanel.h"
#include "ui/MainWindow.h"

using namespace nnwb;

namespace {
const QString kBundled = QStringLiteral(NNWB_RESOURCE_DIR "/data/EURUSD_H1_2017-2018.csv");
}

class TestDataChecks : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QCoreApplication::setOrganizationName(QStringLiteral("nnwb-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_data_checks"));
    }

    void tooShortFileDisablesTrain() {
        QTemporaryDir dir;
        QFile in(kBundled);
        QVERIFY(in.open(QIODevice::ReadOnly));
        QByteArray head;
        for (int i = 0; i < 20; ++i) head += in.readLine();  // header + 19 bars
        const QString few = dir.filePath(QStringLiteral("EURUSD_19.csv"));
        QFile out(few);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(head);
        out.close();

        MainWindow w;
        w.setConfirmDiscard(false);
        w.document()->reset(
            Experiment::load(std::string(NNWB_RESOURCE_DIR) + "/experiments/default.json"));
        QTRY_VERIFY(!w.dataPanel()->isLoading());
        QTRY_VERIFY2(w.trainAction()->isEnabled(), qPrintable(w.trainAction()->toolTip()));
        QVERIFY(w.openFile(few));
        QTRY_VERIFY(!w.dataPanel()->isLoading());
        QVERIFY2(w.dataPanel()->problem().contains("needs at least 54 bars, file has 19"),
                 qPrintable(w.dataPanel()->problem()));
        QVERIFY2(w.dataPanel()->warningText().contains("needs at least 54 bars, file has 19"),
                 qPrintable(w.dataPanel()->warningText()));
        QVERIFY(!w.trainAction()->isEnabled());
        QVERIFY2(w.trainAction()->toolTip().contains("needs at least 54 bars"),
                 qPrintable(w.trainAction()->toolTip()));
        // The whole file: usable again.
        QVERIFY(w.openFile(kBundled));
        QTRY_VERIFY(!w.dataPanel()->isLoading());
        QVERIFY(w.dataPanel()->problem().isEmpty());
        QVERIFY(w.trainAction()->isEnabled());
    }

    void aGoodFileAfterAFailedOneClearsTheError() {
        QTemporaryDir dir;
        QFile in(kBundled);
        QVERIFY(in.open(QIODevice::ReadOnly));
        const QByteArray all = in.readAll();
        // A long file whose last line is bad: it fails after the small good one is read.
        const QString bad = dir.filePath(QStringLiteral("bad.csv"));
        QFile out(bad);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(all);
        const QByteArray body = all.mid(all.indexOf('\n') + 1);
        for (int i = 0; i < 15; ++i) out.write(body);
        out.write("this is no bar\n");
        out.close();
        const QString good = dir.filePath(QStringLiteral("good.csv"));
        QVERIFY(QFile::copy(kBundled, good));

        MainWindow w;
        w.setConfirmDiscard(false);
        w.document()->reset(
            Experiment::load(std::string(NNWB_RESOURCE_DIR) + "/experiments/default.json"));
        QTRY_VERIFY(!w.dataPanel()->isLoading());
        w.dataPanel()->openPriceFile(bad);
        QTRY_VERIFY(!w.dataPanel()->isLoading());
        QVERIFY(!w.dataPanel()->errorText().isEmpty());  // the failed import's error
        w.dataPanel()->openPriceFile(good);
        QTRY_VERIFY(!w.dataPanel()->isLoading());
        QVERIFY2(w.dataPanel()->errorText().isEmpty(), qPrintable(w.dataPanel()->errorText()));
        // The bad one still being read when the good one is opened.
        w.dataPanel()->openPriceFile(bad);
        w.dataPanel()->openPriceFile(good);
        QTRY_VERIFY_WITH_TIMEOUT(!w.dataPanel()->isLoading(), 60000);
        QVERIFY2(w.dataPanel()->errorText().isEmpty(), qPrintable(w.dataPanel()->errorText()));
        QVERIFY(QString::fromStdString(w.document()->experiment().data.value("file", ""))
                    .endsWith(QStringLiteral("good.csv")));
    }

    void zeroVolumeIsNamedAndLeftOff() {
        MainWindow w;
        w.setConfirmDiscard(false);
        // An experiment with every feature on (the old defaults), then the bundled file.
        Experiment e =
            Experiment::load(std::string(NNWB_RESOURCE_DIR) + "/experiments/default.json");
        e.data["features"] = {{"tickVolume", true}};
        e.data.erase("file");
        e.data["source"] = "synthetic";
        w.document()->reset(e);
        QVERIFY(w.openFile(kBundled));
        QTRY_VERIFY(!w.dataPanel()->isLoading());
        const auto& f = w.document()->experiment().data["features"];
        QCOMPARE(f.value("tickVolume", true), false);
        QVERIFY2(w.dataPanel()->warningText().contains(
                     "EURUSD_H1_2017-2018.csv: feature tickVolume is 0 on every bar"),
                 qPrintable(w.dataPanel()->warningText()));
        auto* box = w.dataPanel()->findChild<QCheckBox*>(QStringLiteral("feature:tickVolume"));
        QVERIFY(box);
        QVERIFY(!box->isChecked());
        // Switched on explicitly: still trainable, still warned.
        box->setChecked(true);
        QVERIFY2(w.dataPanel()->warningText().contains("this experiment uses it"),
                 qPrintable(w.dataPanel()->warningText()));
        QVERIFY(w.dataPanel()->problem().isEmpty());
        // The scale-free switches exist, with their formula as tooltip.
        auto* atr = w.dataPanel()->findChild<QCheckBox*>(QStringLiteral("feature:closeOpenAtr"));
        QVERIFY(atr);
        QVERIFY2(atr->toolTip().contains("(close - open) / ATR(atrPeriod)"),
                 qPrintable(atr->toolTip()));
    }
};

QTEST_MAIN(TestDataChecks)
#include "tst_data_checks.moc"
