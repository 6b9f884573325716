// GUI: building a layer stack through the editor widgets (palette, parameter form, move,
// duplicate, undo/redo) and an invalid stack disabling Train with the reason.
#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QMenu>
#include <QSpinBox>
#include <QToolButton>
#include <QTreeWidget>
#include <QtTest>

#include "app/core/ExperimentDocument.h"
#include "app/core/LayerStackModel.h"
#include "common/TestUtil.h"
#include "model/layers/LayerRegistry.h"
#include "ui/LayerParamForm.h"
#include "ui/LayerStackEditor.h"
#include "ui/MainWindow.h"

using namespace nnwb;

class TestLayerEditor : public QObject {
    Q_OBJECT

    static Experiment emptyExperiment() {
        Experiment e = Experiment::fromJson(test::tinyExperimentJson());
        e.model["layers"] = nlohmann::json::array();
        return e;
    }
    static QAction* paletteAction(MainWindow& w, const char* type) {
        return w.layerEditor()->palette()->findChild<QAction*>(QStringLiteral("add:") + type);
    }
    static QSpinBox* intField(MainWindow& w, const char* key) {
        return w.layerEditor()->form()->findChild<QSpinBox*>(QStringLiteral("param:") + key);
    }
    static std::string typeAt(MainWindow& w, int i) {
        return w.stackModel()->layers()[i]["type"].get<std::string>();
    }

private Q_SLOTS:
    void initTestCase() {
        QCoreApplication::setOrganizationName(QStringLiteral("nnwb-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_layer_editor"));
    }

    void paletteListsEveryRegisteredType() {
        MainWindow w;
        w.setConfirmDiscard(false);
        for (const auto& t : layerTypes())
            QVERIFY2(paletteAction(w, t.type.c_str()), t.type.c_str());
    }

    void buildStackThroughEditor() {
        MainWindow w;
        w.setConfirmDiscard(false);
        w.document()->reset(emptyExperiment());
        w.show();
        QCOMPARE(w.stackModel()->count(), 0);
        QVERIFY(!w.trainAction()->isEnabled());
        QVERIFY2(w.trainAction()->toolTip().contains(QStringLiteral("empty")),
                 qPrintable(w.trainAction()->toolTip()));

        // conv from the palette, then its parameters through the generic form
        paletteAction(w, "conv")->trigger();
        QCOMPARE(w.stackModel()->count(), 1);
        QCOMPARE(w.layerEditor()->currentLayer(), 0);
        intField(w, "window")->setValue(6);
        intField(w, "step")->setValue(6);
        intField(w, "filters")->setValue(8);
        QCOMPARE(w.stackModel()->layers()[0]["filters"].get<int>(), 8);
        QCOMPARE(w.stackModel()->layers()[0]["window"].get<int>(), 6);

        // dense after it, 3 outputs → a valid stack
        paletteAction(w, "dense")->trigger();
        QCOMPARE(w.stackModel()->count(), 2);
        QCOMPARE(w.layerEditor()->currentLayer(), 1);
        intField(w, "neurons")->setValue(3);
        auto* act =
            w.layerEditor()->form()->findChild<QComboBox*>(QStringLiteral("param:activation"));
        QVERIFY(act);
        act->setCurrentText(QStringLiteral("sigmoid"));
        QCOMPARE(w.stackModel()->layers()[1]["activation"].get<std::string>(),
                 std::string("sigmoid"));
        QVERIFY2(w.stackModel()->analysis().valid, w.stackModel()->analysis().error.c_str());
        QVERIFY(w.trainAction()->isEnabled());
        // live shapes and parameter counts in the table
        QTreeWidget* table = w.layerEditor()->table();
        QCOMPARE(table->topLevelItemCount(), 2);
        QCOMPARE(table->topLevelItem(0)->text(2), QStringLiteral("4x8"));  // 24 values / 6
        QCOMPARE(table->topLevelItem(1)->text(2), QStringLiteral("1x3"));
        QCOMPARE(table->topLevelItem(1)->text(3), QStringLiteral("99"));  // 32*3 + 3

        // move the dense layer up with the button, then undo the move
        auto* up = w.layerEditor()->findChild<QToolButton*>(QStringLiteral("moveUp"));
        QVERIFY(up && up->isEnabled());
        QTest::mouseClick(up, Qt::LeftButton);
        QCOMPARE(typeAt(w, 0), std::string("dense"));
        QCOMPARE(w.layerEditor()->currentLayer(), 0);
        QVERIFY(!w.trainAction()->isEnabled());  // dense(3) → conv(6) does not fit
        w.undoAction()->trigger();
        QCOMPARE(typeAt(w, 0), std::string("conv"));
        QVERIFY(w.trainAction()->isEnabled());
        w.redoAction()->trigger();
        QCOMPARE(typeAt(w, 0), std::string("dense"));
        w.undoAction()->trigger();

        // duplicate, remove, and undo both
        w.layerEditor()->setCurrentLayer(0);
        QTest::mouseClick(
            w.layerEditor()->findChild<QToolButton*>(QStringLiteral("duplicateLayer")),
            Qt::LeftButton);
        QCOMPARE(w.stackModel()->count(), 3);
        QCOMPARE(w.stackModel()->layers()[1], w.stackModel()->layers()[0]);
        QTest::mouseClick(w.layerEditor()->findChild<QToolButton*>(QStringLiteral("removeLayer")),
                          Qt::LeftButton);
        QCOMPARE(w.stackModel()->count(), 2);
        w.undoAction()->trigger();
        w.undoAction()->trigger();
        QCOMPARE(w.stackModel()->count(), 2);
        QCOMPARE(typeAt(w, 1), std::string("dense"));
        QVERIFY(w.document()->isModified());

        // every edit of a parameter is its own undo step (issue 13: no merging)
        w.layerEditor()->setCurrentLayer(0);
        const int before = w.document()->undoStack()->index();
        intField(w, "filters")->setValue(9);
        intField(w, "filters")->setValue(10);
        intField(w, "filters")->setValue(11);
        QCOMPARE(w.document()->undoStack()->index(), before + 3);
        w.undoAction()->trigger();
        QCOMPARE(w.stackModel()->layers()[0]["filters"].get<int>(), 10);
        QCOMPARE(intField(w, "filters")->value(), 10);  // the form follows undo
    }

    void invalidStackDisablesTrainWithReason() {
        MainWindow w;
        w.setConfirmDiscard(false);
        w.document()->reset(Experiment::fromJson(test::tinyExperimentJson()));
        QVERIFY(w.trainAction()->isEnabled());

        // a last layer with the wrong number of outputs
        QVERIFY(w.stackModel()->setParameter(1, "neurons", 5));
        QVERIFY(!w.trainAction()->isEnabled());
        QVERIFY2(w.trainAction()->toolTip().contains(QStringLiteral("targets have 3")),
                 qPrintable(w.trainAction()->toolTip()));
        QCOMPARE(w.stackModel()->analysis().errorLayer, 1);
        QVERIFY(!w.layerEditor()->table()->topLevelItem(1)->toolTip(1).isEmpty());
        QVERIFY(w.layerEditor()->table()->topLevelItem(0)->toolTip(2).isEmpty());

        // a layer that cannot take its input: ShapeError::layer() marks it
        w.undoAction()->trigger();
        QVERIFY(w.trainAction()->isEnabled());
        QVERIFY(w.stackModel()->setParameter(0, "window", 100));
        QCOMPARE(w.stackModel()->analysis().errorLayer, 0);
        const QString reason = w.layerEditor()->table()->topLevelItem(0)->toolTip(1);
        QVERIFY2(reason.contains(QStringLiteral("layer 1")) &&
                     reason.contains(QStringLiteral("longer than the input")),
                 qPrintable(reason));
        QVERIFY(w.trainAction()->toolTip().contains(reason));
        auto* status = w.layerEditor()->findChild<QLabel*>(QStringLiteral("stackStatus"));
        QCOMPARE(status->text(), reason);
        QVERIFY(!w.startTraining());
        w.undoAction()->trigger();
        QVERIFY(w.trainAction()->isEnabled());
    }

    void dataChangeReanalyzesStack() {
        MainWindow w;
        w.setConfirmDiscard(false);
        w.document()->reset(Experiment::fromJson(test::tinyExperimentJson()));
        QVERIFY(w.trainAction()->isEnabled());
        nlohmann::json d = w.document()->experiment().data;
        d["units"] = 1;  // 1x6 input: the conv still fits, the dense input changes
        w.document()->setData(d);
        QVERIFY(w.stackModel()->analysis().valid);
        QCOMPARE(w.stackModel()->analysis().layers[0].output.units, 1);
        d["window"] = 2;  // 2 values: the conv window 6 no longer fits
        w.document()->setData(d);
        QVERIFY(!w.trainAction()->isEnabled());
        QCOMPARE(w.stackModel()->analysis().errorLayer, 0);
    }

    // Issue 13, finding 5: every preset of Model > Presets fits a 6-bar window, and the stack
    // stays valid when features are switched off (layers take their sizes from the input).
    void presetsFitTheData() {
        MainWindow w;
        w.setConfirmDiscard(false);
        Experiment e = Experiment::fromJson(test::tinyExperimentJson());
        e.data = {{"source", "file"}, {"file", "prices.csv"}, {"window", 6}};
        w.document()->reset(e);
        QMenu* presets = nullptr;
        for (QMenu* m : w.findChildren<QMenu*>())
            if (m->title() == QStringLiteral("&Presets")) presets = m;
        QVERIFY(presets);
        int applied = 0;
        for (QAction* a : presets->actions()) {
            if (!a->isEnabled() || a->isSeparator()) continue;
            a->trigger();
            ++applied;
            QVERIFY2(w.stackModel()->analysis().valid,
                     qPrintable(a->text() + ": " + w.stackModel()->problem()));
            QVERIFY2(w.trainAction()->isEnabled(), qPrintable(a->text()));
            nlohmann::json d = w.document()->experiment().data;
            d["features"] = {
                {"rsi", false}, {"cci", false}, {"atr", false}, {"month", false}, {"hour", false}};
            w.document()->setData(d);
            QVERIFY2(w.stackModel()->analysis().valid,
                     qPrintable(a->text() + " with 7 features: " + w.stackModel()->problem()));
            d.erase("features");
            w.document()->setData(d);
        }
        QVERIFY(applied >= 6);
    }
};

QTEST_MAIN(TestLayerEditor)
#include "tst_layer_editor.moc"
