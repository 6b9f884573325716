// GUI: the window fits a 1280×720 screen (issue 13, finding 7): its minimum size is within
// it, and at that size with the default layout every dock lies inside the window (panes that
// need more room scroll).
#include <QDockWidget>
#include <QtTest>

#include "ui/DataPanel.h"
#include "ui/MainWindow.h"

using namespace nnwb;

class TestSmallScreen : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void fits1280x720_data() {
        QTest::addColumn<int>("laidOutAt");  // the width the default layout was made for
        QTest::newRow("compact layout") << 1280;
        QTest::newRow("wide layout, then made smaller") << 1600;
    }
    void fits1280x720() {
        QFETCH(int, laidOutAt);
        MainWindow w;
        w.setConfirmDiscard(false);
        // As the window opens by default: the bundled experiment on the EURUSD bars.
        QVERIFY(w.openExperiment(QStringLiteral(NNWB_RESOURCES_DIR) + "/experiments/default.json"));
        w.resize(laidOutAt, 960);  // as app/gui/main.cpp does: size, layout, then show
        w.applyDefaultLayout();
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTRY_VERIFY(!w.dataPanel()->isLoading());
        w.resize(1280, 720);
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTest::qWait(50);
        const QSize min = w.minimumSizeHint().expandedTo(w.minimumSize());
        QString parts;  // what makes the minimum, for the failure message
        for (QDockWidget* d : w.findChildren<QDockWidget*>())
            parts += QString(" %1 %2").arg(d->objectName()).arg(d->minimumSizeHint().width());
        parts += QString(" central %1").arg(w.centralWidget()->minimumSizeHint().width());
        QVERIFY2(
            min.width() <= 1280 && min.height() <= 720,
            qPrintable(QString("minimum %1x%2:%3").arg(min.width()).arg(min.height()).arg(parts)));
        QCOMPARE(w.size(), QSize(1280, 720));
        for (QDockWidget* d : w.findChildren<QDockWidget*>()) {
            if (!d->isVisible() || d->visibleRegion().isEmpty()) continue;  // a hidden tab
            const QRect r(d->mapTo(&w, QPoint(0, 0)), d->size());
            QVERIFY2(w.rect().contains(r), qPrintable(QString("%1 at %2,%3 %4x%5")
                                                          .arg(d->objectName())
                                                          .arg(r.x())
                                                          .arg(r.y())
                                                          .arg(r.width())
                                                          .arg(r.height())));
            QVERIFY2(d->width() >= d->widget()->minimumSizeHint().width() ||
                         d->widget()->inherits("QScrollArea"),
                     qPrintable(d->objectName() + " is narrower than its content"));
            // Not squeezed to a sliver (it was 60 px: labels cut, fields gone).
            QVERIFY2(d->width() >= 250,
                     qPrintable(QString("%1 is %2 px wide").arg(d->objectName()).arg(d->width())));
        }
    }
};

QTEST_MAIN(TestSmallScreen)
#include "tst_small_screen.moc"
