// GUI: the Help menu (About with the version and the devices, First Steps, README) and a
// tooltip on every field of the Data, Model and Training panes (issue 13, finding 10).
#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QTextBrowser>
#include <QtTest>

#include "app/core/ExperimentDocument.h"
#include "app/core/LayerStackModel.h"
#include "common/TestUtil.h"
#include "model/layers/LayerRegistry.h"
#include "nnwb/TestPaths.h"
#include "ui/DataPanel.h"
#include "ui/HelpMenu.h"
#include "ui/LayerParamForm.h"
#include "ui/LayerStackEditor.h"
#include "ui/MainWindow.h"
#include "ui/TrainingPanel.h"

using namespace nnwb;

namespace {
// Fields of `pane` (its inputs and buttons) without a tooltip, by object name or class.
QStringList untipped(QWidget* pane) {
    QStringList out;
    for (QWidget* w : pane->findChildren<QWidget*>()) {
        const bool field =
            qobject_cast<QAbstractSpinBox*>(w) || qobject_cast<QComboBox*>(w) ||
            qobject_cast<QAbstractButton*>(w) ||
            (qobject_cast<QLineEdit*>(w) && !qobject_cast<QAbstractSpinBox*>(w->parent()) &&
             !qobject_cast<QComboBox*>(w->parent()));
        if (field && w->toolTip().trimmed().isEmpty())
            out << (w->objectName().isEmpty()
                        ? QString::fromLatin1(w->metaObject()->className()) + " " +
                              (qobject_cast<QAbstractButton*>(w)
                                   ? qobject_cast<QAbstractButton*>(w)->text()
                                   : QString())
                        : w->objectName());
    }
    return out;
}
}  // namespace

class TestHelp : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void helpMenu() {
        MainWindow w;
        w.setConfirmDiscard(false);
        QMenu* help = w.menuBar()->findChild<QMenu*>(QStringLiteral("helpMenu"));
        QVERIFY(help);
        for (const char* name : {"aboutAction", "firstStepsAction", "readmeAction"})
            QVERIFY2(
                help->findChild<QAction*>(QLatin1String(name)) ||
                    [&] {
                        for (QAction* a : help->actions())
                            if (a->objectName() == QLatin1String(name)) return true;
                        return false;
                    }(),
                name);
        const QString about = aboutText();
        QVERIFY(about.contains(QStringLiteral(NNWB_VERSION_TEST)));
        QVERIFY(about.contains(QLatin1String(qVersion())));
        QVERIFY(about.contains(QStringLiteral("<code>cpu</code>")));
        // The licences and the data's attribution (issue 47), with the NOTICE it came with.
        for (const char* words : {"QCustomPlot (GPL-3)", "Qt 6 (LGPL-3)", "QuantConnect Lean",
                                  "Apache License 2.0", "Oanda", "/NOTICE</code>"})
            QVERIFY2(about.contains(QLatin1String(words)), words);
        QVERIFY(firstStepsText().contains(QStringLiteral("Presets")));
        QVERIFY2(!readmePath().isEmpty(), "README.md next to the resources");
    }

    // Help > README shows the README in the window (issue 24, part 4): it only said "open it
    // in a viewer of your choice" where no desktop handler opened it.
    void readmeOpens() {
        MainWindow w;
        w.setConfirmDiscard(true);
        w.show();
        QAction* readme = nullptr;
        for (QAction* a : w.findChildren<QAction*>())
            if (a->objectName() == QLatin1String("readmeAction")) readme = a;
        QVERIFY(readme);
        readme->trigger();
        QTextBrowser* shown = nullptr;
        QTRY_VERIFY([&] {
            for (QWidget* top : QApplication::topLevelWidgets())
                if (top->isVisible())
                    if (auto* b = top->findChild<QTextBrowser*>(QStringLiteral("readmeText")))
                        shown = b;
            return shown != nullptr;
        }());
        QVERIFY(shown->toPlainText().contains(QStringLiteral("nnwb-cli")));
        QVERIFY(!shown->toPlainText().contains(QStringLiteral("viewer of your choice")));
        shown->window()->close();
    }

    void everyFieldHasATooltip() {
        MainWindow w;
        w.setConfirmDiscard(false);
        QStringList missing = untipped(w.dataPanel());
        QVERIFY2(missing.isEmpty(), qPrintable("Data: " + missing.join(", ")));
        missing = untipped(w.trainingPanel());
        QVERIFY2(missing.isEmpty(), qPrintable("Training: " + missing.join(", ")));
        // The Model pane's parameter form, for a layer of every type.
        Experiment e = Experiment::fromJson(test::tinyExperimentJson());
        e.model["layers"] = nlohmann::json::array();
        w.document()->reset(e);
        for (const auto& t : layerTypes()) {
            w.stackModel()->addLayer(t.type);
            w.layerEditor()->setCurrentLayer(w.stackModel()->count() - 1);
            missing = untipped(w.layerEditor());
            QVERIFY2(missing.isEmpty(),
                     qPrintable(QString::fromStdString(t.type) + ": " + missing.join(", ")));
        }
    }
};

QTEST_MAIN(TestHelp)
#include "tst_help.moc"
