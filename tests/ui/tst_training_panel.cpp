// GUI: the Training and Data panes' fields are generated from the settings tables
// (model/TrainingSettings.h, model/DataSettings.h): one field per entry, named by it, with its
// label, help as tooltip, enabled by its condition; an edit reaches the document's section.
// Adam's epsilon (an entry added to the table) shows up with nothing written in ui/.
// Issue 41: a field keeps the exact value it was given until the user types (focus in and out
// of Learning rate rounded 0.0012261443415355312); the wheel changes a field only when it has
// the focus; text that is no valid value is marked with the range and gives way to the value
// in use when the field is left.
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QWheelEvent>
#include <QtTest>

#include "app/core/ExperimentDocument.h"
#include "common/TestUtil.h"
#include "model/DataSettings.h"
#include "model/TrainingSettings.h"
#include "ui/DataPanel.h"
#include "ui/TrainingPanel.h"

using namespace nnwb;

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

// The text of the form label of `field` ("" for a check box row).
QString labelOf(QWidget* field) {
    for (QFormLayout* form : field->window()->findChildren<QFormLayout*>()) {
        int row = -1;
        QFormLayout::ItemRole role;
        form->getWidgetPosition(field, &row, &role);
        if (row < 0) continue;
        QLayoutItem* label = form->itemAt(row, QFormLayout::LabelRole);
        auto* l = label ? qobject_cast<QLabel*>(label->widget()) : nullptr;
        return l ? l->text() : QString();
    }
    return QStringLiteral("(not in a form)");
}

// Every entry of `specs` has its field under `pane`, labelled and tipped as the entry says.
void checkFields(QWidget* pane, const std::vector<SettingSpec>& specs) {
    for (const SettingSpec& s : specs) {
        auto* w = pane->findChild<QWidget*>(q(s.name));
        QVERIFY2(w, s.name.c_str());
        QCOMPARE(w->toolTip(), q(s.help));
        if (s.kind == SettingSpec::Kind::Bool)
            QCOMPARE(qobject_cast<QCheckBox*>(w)->text(), q(s.label));
        else
            QCOMPARE(labelOf(w), q(s.label) + QLatin1Char(':'));
    }
}

}  // namespace

class TestTrainingPanel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyTrainingSettingHasItsField() {
        ExperimentDocument doc;
        doc.reset(Experiment::fromJson(test::tinyExperimentJson()));
        TrainingPanel panel(&doc);
        checkFields(&panel, trainingSettingSpecs());
    }

    void everyDataSettingHasItsField() {
        ExperimentDocument doc;
        doc.reset(Experiment::fromJson(test::tinyExperimentJson()));
        DataPanel panel(&doc);
        checkFields(&panel, dataSettings());
    }

    // The new setting: its field is there, enabled for Adam only, and an edit stores it.
    void adamEpsilonField() {
        ExperimentDocument doc;
        doc.reset(Experiment::fromJson(test::tinyExperimentJson()));
        TrainingPanel panel(&doc);
        auto* eps = panel.findChild<QLineEdit*>(QStringLiteral("epsilon"));
        QVERIFY(eps);
        QCOMPARE(labelOf(eps), QStringLiteral("Adam epsilon:"));
        QCOMPARE(eps->text(), QStringLiteral("1e-08"));
        QVERIFY(eps->isEnabled());
        eps->setText(QStringLiteral("1e-4"));
        Q_EMIT eps->editingFinished();
        QCOMPARE(doc.experiment().training.optimizer.epsilon, 1e-4);
        QCOMPARE(eps->text(), QStringLiteral("0.0001"));
        auto* method = panel.findChild<QComboBox*>(QStringLiteral("optimizer"));
        method->setCurrentIndex(method->findData(QStringLiteral("sgd")));
        QCOMPARE(doc.experiment().training.optimizer.type, std::string("sgd"));
        QVERIFY(!eps->isEnabled());
        QVERIFY(panel.findChild<QWidget*>(QStringLiteral("momentum"))->isEnabled());
        doc.undoStack()->undo();
        doc.undoStack()->undo();
        QCOMPARE(eps->text(), QStringLiteral("1e-08"));
        QVERIFY(eps->isEnabled());
    }

    // A value the field cannot hold (the format's range) leaves the document as it was.
    void outOfRangeTextLeavesTheSetting() {
        ExperimentDocument doc;
        doc.reset(Experiment::fromJson(test::tinyExperimentJson()));
        TrainingPanel panel(&doc);
        auto* eps = panel.findChild<QLineEdit*>(QStringLiteral("epsilon"));
        eps->setText(QStringLiteral("5"));
        Q_EMIT eps->editingFinished();
        QCOMPARE(doc.experiment().training.optimizer.epsilon, 1e-8);
        QCOMPARE(eps->text(), QStringLiteral("1e-08"));
    }

    void aFieldKeepsItsExactValueUntilTyped() {
        ExperimentDocument doc;
        nlohmann::json j = test::tinyExperimentJson();
        j["training"]["optimizer"]["learningRate"] = 0.0012261443415355312;
        doc.reset(Experiment::fromJson(j));
        TrainingPanel panel(&doc);
        panel.show();
        panel.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&panel));
        auto* lr = panel.findChild<QLineEdit*>(QStringLiteral("learningRate"));
        QCOMPARE(lr->text(), QStringLiteral("0.0012261443415355312"));
        const int steps = doc.undoStack()->count();
        lr->setFocus();  // in and out again, as a click into the field and then another
        QTRY_VERIFY(lr->hasFocus());
        panel.findChild<QLineEdit*>(QStringLiteral("clipNorm"))->setFocus();
        QTRY_VERIFY(!lr->hasFocus());
        QCOMPARE(lr->text(), QStringLiteral("0.0012261443415355312"));
        Q_EMIT lr->editingFinished();
        QCOMPARE(doc.experiment().training.optimizer.learningRate, 0.0012261443415355312);
        QCOMPARE(doc.undoStack()->count(), steps);
        QVERIFY(!doc.isModified());
        // Another field's edit leaves it exact too.
        auto* epochs = panel.findChild<QSpinBox*>(QStringLiteral("epochs"));
        epochs->setValue(epochs->value() + 1);
        QCOMPARE(doc.experiment().training.optimizer.learningRate, 0.0012261443415355312);
        // Typing is an edit.
        lr->setText(QStringLiteral("0.002"));
        Q_EMIT lr->editingFinished();
        QCOMPARE(doc.experiment().training.optimizer.learningRate, 0.002);
    }

    void deletingThePaneWithAFocusedFieldEditsNothing() {
        // QWidget's destructor (after TrainingPanel's) takes the focus from a field, which
        // ends its editing: that must not reach the pane being deleted (UBSan: a downcast to
        // a destroyed TrainingPanel; without it, the typed value reached the document).
        ExperimentDocument doc;
        doc.reset(Experiment::fromJson(test::tinyExperimentJson()));
        const double before = doc.experiment().training.optimizer.learningRate;
        auto* panel = new TrainingPanel(&doc);
        panel->show();
        panel->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(panel));
        auto* lr = panel->findChild<QLineEdit*>(QStringLiteral("learningRate"));
        lr->setFocus();
        QTRY_VERIFY(lr->hasFocus());
        lr->setText(QStringLiteral("0.004"));
        delete panel;
        QCOMPARE(doc.experiment().training.optimizer.learningRate, before);
        QVERIFY(!doc.isModified());
    }

    void theWheelChangesOnlyAFocusedField() {
        ExperimentDocument doc;
        doc.reset(Experiment::fromJson(test::tinyExperimentJson()));
        TrainingPanel panel(&doc);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        auto* seed = panel.findChild<QSpinBox*>(QStringLiteral("seed"));
        auto wheel = [&](QWidget* w) {
            const QPoint at = w->rect().center();
            QWheelEvent e(at, w->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton,
                          Qt::NoModifier, Qt::NoScrollPhase, false);
            QApplication::sendEvent(w, &e);
        };
        const uint64_t before = doc.experiment().training.seed;
        QVERIFY(!seed->hasFocus());
        for (int i = 0; i < 15; ++i) wheel(seed);
        QCOMPARE(doc.experiment().training.seed, before);
        QCOMPARE(seed->value(), int(before));
        QCOMPARE(seed->focusPolicy(), Qt::StrongFocus);  // a wheel does not give it the focus
        panel.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&panel));
        seed->setFocus();
        QTRY_VERIFY(seed->hasFocus());
        wheel(seed);
        QCOMPARE(doc.experiment().training.seed, before - 1);
    }

    void invalidTextIsMarkedThenGivesWayToTheValueInUse() {
        ExperimentDocument doc;
        nlohmann::json j = test::tinyExperimentJson();
        j["formatVersion"] = 2;  // clipNorm is read from version 2 on
        j["training"]["clipNorm"] = 5.0;
        doc.reset(Experiment::fromJson(j));
        TrainingPanel panel(&doc);
        panel.show();
        panel.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&panel));
        auto* clip = panel.findChild<QLineEdit*>(QStringLiteral("clipNorm"));
        QCOMPARE(clip->text(), QStringLiteral("5"));
        clip->setFocus();
        QTRY_VERIFY(clip->hasFocus());
        clip->selectAll();
        QTest::keyClicks(clip, QStringLiteral("1e99"));
        QCOMPARE(clip->text(), QStringLiteral("1e99"));
        const QString reason = clip->property("invalidReason").toString();
        QVERIFY2(reason.contains(QStringLiteral("[0, ")), qPrintable(reason));  // the range
        QVERIFY(clip->toolTip().startsWith(clip->property("invalidReason").toString()));
        panel.findChild<QSpinBox*>(QStringLiteral("seed"))->setFocus();  // leave the field
        QTRY_VERIFY(!clip->hasFocus());
        QCOMPARE(clip->text(), QStringLiteral("5"));  // what is shown is what is used
        QVERIFY(clip->property("invalidReason").toString().isEmpty());
        QCOMPARE(doc.experiment().training.clipNorm, 5.0);
    }

    // Class weights "given" with no weights yet starts from one per output of a 3-class task.
    void givenClassWeightsStartAtOne() {
        ExperimentDocument doc;
        doc.reset(Experiment::fromJson(test::tinyExperimentJson()));
        TrainingPanel panel(&doc);
        auto* weights = panel.findChild<QLineEdit*>(QStringLiteral("givenWeights"));
        QVERIFY(!weights->isEnabled());
        auto* mode = panel.findChild<QComboBox*>(QStringLiteral("classWeights"));
        mode->setCurrentIndex(mode->findData(QStringLiteral("given")));
        QCOMPARE(doc.experiment().training.classWeights.weights, std::vector<double>(3, 1.0));
        QVERIFY(weights->isEnabled());
        QCOMPARE(weights->text(), QStringLiteral("1, 1, 1"));
        weights->setText(QStringLiteral("1, 2.5, 2.5"));
        Q_EMIT weights->editingFinished();
        QCOMPARE(doc.experiment().training.classWeights.weights,
                 (std::vector<double>{1, 2.5, 2.5}));
    }
};

QTEST_MAIN(TestTrainingPanel)
#include "tst_training_panel.moc"
