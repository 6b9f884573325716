// GUI: undo as issue 13 (finding 4) asks for it: every edit of the document (layers, data,
// training) is one undo step with a text saying what changed; distinct edits of one field are
// distinct steps; Ctrl+Z with the focus in a field undoes the document, not the field's text
// (unless the field holds uncommitted typing).
#include <QLineEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QUndoStack>
#include <QtTest>

#include "app/core/ExperimentDocument.h"
#include "app/core/LayerStackModel.h"
#include "common/TestUtil.h"
#include "ui/DataPanel.h"
#include "ui/LayerParamForm.h"
#include "ui/LayerStackEditor.h"
#include "ui/MainWindow.h"
#include "ui/TrainingPanel.h"

using namespace nnwb;

class TestUndo : public QObject {
    Q_OBJECT

    static QSpinBox* paramField(MainWindow& w, const char* key) {
        return w.layerEditor()->form()->findChild<QSpinBox*>(QStringLiteral("param:") + key);
    }
    static int filters(MainWindow& w) { return w.stackModel()->layers()[0]["filters"].get<int>(); }
    static void typeInto(QSpinBox* box, const QString& text) {
        box->setFocus();
        box->selectAll();
        QTest::keyClicks(box, text);
        QTest::keyClick(box, Qt::Key_Return);
    }

private Q_SLOTS:
    void initTestCase() {
        QCoreApplication::setOrganizationName(QStringLiteral("nnwb-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_undo"));
    }

    // 6 -> 7 -> 100 undoes to 7, then to 6 (it used to merge into one step back to 6).
    void distinctEditsAreDistinctSteps() {
        MainWindow w;
        w.setConfirmDiscard(false);
        w.document()->reset(Experiment::fromJson(test::tinyExperimentJson()));
        w.show();
        w.layerEditor()->setCurrentLayer(0);
        QSpinBox* box = paramField(w, "filters");
        QVERIFY(box);
        box->setValue(6);
        box->setValue(7);
        box->setValue(100);
        QCOMPARE(w.undoAction()->text(), QStringLiteral("&Undo Layer 1: filters 7 → 100"));
        w.undoAction()->trigger();
        QCOMPARE(filters(w), 7);
        QCOMPARE(box->value(), 7);
        w.undoAction()->trigger();
        QCOMPARE(filters(w), 6);
        w.redoAction()->trigger();
        QCOMPARE(filters(w), 7);
    }

    // Ctrl+Z typed in the focused field reaches the document's undo stack.
    void ctrlZInAFocusedField() {
        MainWindow w;
        w.setConfirmDiscard(false);
        w.document()->reset(Experiment::fromJson(test::tinyExperimentJson()));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.activateWindow();
        w.layerEditor()->setCurrentLayer(0);
        QSpinBox* box = paramField(w, "filters");
        typeInto(box, QStringLiteral("9"));
        QCOMPARE(filters(w), 9);
        typeInto(box, QStringLiteral("12"));
        QCOMPARE(filters(w), 12);
        QVERIFY(box->hasFocus());
        QTest::keyClick(box, Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(filters(w), 9);
        QCOMPARE(box->value(), 9);
        QTest::keyClick(box, Qt::Key_Y, Qt::ControlModifier);
        QCOMPARE(filters(w), 12);
        // Uncommitted typing: Ctrl+Z is the field's own (the document keeps 12).
        box->selectAll();
        QTest::keyClicks(box, QStringLiteral("3"));
        QTest::keyClick(box, Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(filters(w), 12);
    }

    // Data and training edits are undoable, one step each, with a text naming the change.
    void dataAndTrainingEditsAreUndoable() {
        MainWindow w;
        w.setConfirmDiscard(false);
        Experiment e = Experiment::fromJson(test::tinyExperimentJson());
        e.data = {{"source", "file"}, {"file", "prices.csv"}, {"window", 20}};
        w.document()->reset(e);
        w.show();
        const nlohmann::json original = w.document()->experiment().toJson();
        auto* window = w.dataPanel()->findChild<QSpinBox*>(QStringLiteral("dataWindow"));
        QVERIFY(window);
        window->setValue(12);
        QCOMPARE(w.document()->experiment().data["window"].get<int>(), 12);
        QCOMPARE(w.undoAction()->text(), QStringLiteral("&Undo Data: window 20 → 12"));
        auto* epochs = w.trainingPanel()->findChild<QSpinBox*>(QStringLiteral("epochs"));
        QVERIFY(epochs);
        epochs->setValue(7);
        QCOMPARE(w.document()->experiment().training.epochs, 7);
        QCOMPARE(w.undoAction()->text(), QStringLiteral("&Undo Training: epochs 3 → 7"));
        auto* lr = w.trainingPanel()->findChild<QLineEdit*>(QStringLiteral("learningRate"));
        lr->setText(QStringLiteral("0.5"));
        Q_EMIT lr->editingFinished();
        QCOMPARE(w.document()->experiment().training.optimizer.learningRate, 0.5);
        QVERIFY(w.document()->isModified());

        w.undoAction()->trigger();  // learning rate
        QCOMPARE(lr->text(), QStringLiteral("0.01"));
        w.undoAction()->trigger();  // epochs
        QCOMPARE(epochs->value(), 3);
        w.undoAction()->trigger();  // window
        QCOMPARE(window->value(), 20);
        QCOMPARE(w.document()->experiment().data["window"].get<int>(), 20);
        QVERIFY(!w.document()->isModified());
        // The file became absolute in the step; it names the same file.
        nlohmann::json now = w.document()->experiment().toJson();
        QCOMPARE(
            QFileInfo(QString::fromStdString(now["data"]["file"].get<std::string>())).fileName(),
            QStringLiteral("prices.csv"));
        now["data"]["file"] = original["data"]["file"];
        QCOMPARE(now.dump(), original.dump());
        w.redoAction()->trigger();
        w.redoAction()->trigger();
        w.redoAction()->trigger();
        QCOMPARE(w.document()->experiment().training.optimizer.learningRate, 0.5);
        QCOMPARE(w.document()->experiment().data["window"].get<int>(), 12);
    }

    // Found by the monkey (seed 11): a training value outside the format's range became an
    // undo step whose redo threw out of the window's code. Now it is refused, and said so.
    void outOfRangeTrainingEditIsRefused() {
        MainWindow w;
        w.setConfirmDiscard(false);
        w.document()->reset(Experiment::fromJson(test::tinyExperimentJson()));
        QSignalSpy rejected(w.document(), &ExperimentDocument::editRejected);
        TrainingConfig t = w.document()->experiment().training;
        t.optimizer.weightDecay = 3.0;
        const int steps = w.document()->undoStack()->count();
        QVERIFY(!w.document()->setTraining(t));
        QCOMPARE(w.document()->undoStack()->count(), steps);
        QCOMPARE(rejected.count(), 1);
        QVERIFY(rejected.at(0).at(0).toString().contains("weightDecay"));
        auto* wd = w.trainingPanel()->findChild<QLineEdit*>(QStringLiteral("weightDecay"));
        wd->setText(QStringLiteral("3"));
        Q_EMIT wd->editingFinished();  // as a field whose validator lets it through would
        QCOMPARE(w.document()->experiment().training.optimizer.weightDecay, 0.0);
        QCOMPARE(w.document()->undoStack()->count(), steps);
    }
};

QTEST_MAIN(TestUndo)
#include "tst_undo.moc"
