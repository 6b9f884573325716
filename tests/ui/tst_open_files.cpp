// GUI: File > Open and drops take price files as data (issue 13, finding 6): a price CSV opened
// or dropped on the window becomes the experiment's data (an undoable step) instead of a raw
// JSON parse error; File > Open Data… exists; a broken experiment says so plainly.
#include <QAction>
#include <QLabel>
#include <QMimeData>
#include <QUndoStack>
#include <QtTest>

#include <fstream>

#include "app/core/ExperimentDocument.h"
#include "common/TestUtil.h"
#include "nnwb/TestPaths.h"
#include "ui/DataPanel.h"
#include "ui/MainWindow.h"

using namespace nnwb;

namespace {
QString fixture(const char* name) {
    return QString(NNWB_TEST_FIXTURES) + "/" + name;
}
std::string dataFile(const MainWindow& w) {
    const auto& d = w.document()->experiment().data;
    return d.contains("file") ? d["file"].get<std::string>() : std::string();
}
}  // namespace

class TestOpenFiles : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QCoreApplication::setOrganizationName(QStringLiteral("nnwb-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_open_files"));
    }

    void openPriceFileLoadsData() {
        MainWindow w;
        w.setConfirmDiscard(false);
        w.document()->reset(Experiment::fromJson(test::tinyExperimentJson()));
        QVERIFY(!MainWindow::isExperimentFile(fixture("mt5_tab.csv")));
        QVERIFY(!MainWindow::isExperimentFile(fixture("mt5_utf16le.csv")));
        QVERIFY(!MainWindow::isExperimentFile(fixture("generic_crlf_bom.csv")));
        QVERIFY(MainWindow::isExperimentFile(QStringLiteral(NNWB_TEST_FIXTURES) +
                                             "/attention/stack-synthetic.json"));
        QVERIFY(w.openFile(fixture("mt5_tab.csv")));
        QTRY_VERIFY(!w.dataPanel()->isLoading());
        QVERIFY2(QString::fromStdString(dataFile(w)).endsWith("mt5_tab.csv"), dataFile(w).c_str());
        QCOMPARE(w.document()->experiment().data["source"].get<std::string>(), std::string("file"));
        QVERIFY(w.lastError().isEmpty());
        QVERIFY(!w.findChild<QLabel*>(QStringLiteral("errorBanner"))->isVisible());
        QVERIFY(w.dataPanel()->errorText().isEmpty());
        QVERIFY(w.undoAction()->text().contains("mt5_tab.csv"));
        w.undoAction()->trigger();
        QCOMPARE(w.document()->experiment().data["source"].get<std::string>(),
                 std::string("synthetic"));
        QVERIFY(w.findChild<QAction*>(QStringLiteral("openDataAction")));
    }

    void dropPriceFile() {
        MainWindow w;
        w.setConfirmDiscard(false);
        w.document()->reset(Experiment::fromJson(test::tinyExperimentJson()));
        w.show();
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(fixture("mt4.csv"))});
        // As the platform delivers a drag: enter, then drop.
        QDragEnterEvent enter(QPoint(50, 50), Qt::CopyAction, &mime, Qt::LeftButton,
                              Qt::NoModifier);
        QCoreApplication::sendEvent(&w, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(&w, &drop);
        QTRY_VERIFY(!w.dataPanel()->isLoading());
        QVERIFY2(
            QString::fromStdString(dataFile(w)).endsWith("mt4.csv"),
            qPrintable(QString::fromStdString(dataFile(w)) + " " + w.dataPanel()->errorText()));
    }

    void brokenExperimentSaysSoPlainly() {
        MainWindow w;
        w.setConfirmDiscard(false);
        const QString path = QString::fromStdString(test::tempDir()) + "/broken.json";
        std::ofstream(path.toStdString()) << "{\"formatVersion\": 1,";
        QVERIFY(!w.openFile(path));
        QVERIFY2(w.findChild<QLabel*>(QStringLiteral("errorBanner"))
                     ->text()
                     .contains("not valid JSON, so not an experiment file"),
                 qPrintable(w.findChild<QLabel*>(QStringLiteral("errorBanner"))->text()));
        QVERIFY(!w.findChild<QLabel*>(QStringLiteral("errorBanner"))
                     ->text()
                     .contains("json.exception"));
    }
};

QTEST_MAIN(TestOpenFiles)
#include "tst_open_files.moc"
