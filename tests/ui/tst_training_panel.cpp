// GUI: the Training and Data panes' fields are generated from the settings tables
// (model/TrainingSettings.h, model/DataSettings.h): one field per entry, named by it, with its
// label, help as tooltip, enabled by its condition; an edit reaches the document's section.
// Adam's epsilon (an entry added to the table) shows up with nothing written in ui/.
#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
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
