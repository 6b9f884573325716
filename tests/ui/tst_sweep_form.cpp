// GUI: the Sweeps tab's form proposes ranges the loader takes (issue 41): a field's range comes
// from the setting's own range (training.lrSchedule.floor at 0 was offered -1..1, then refused
// as "outside [0, 10]"), and the objective starts as oos.loss for a walk-forward experiment
// (it started as validation.loss), validation.loss for a holdout one, and stays as the user
// picked it.
#include <QComboBox>
#include <QTableWidget>
#include <QtTest>

#include "common/TestUtil.h"
#include "model/Experiment.h"
#include "model/TrainingSettings.h"
#include "ui/SweepSpecForm.h"

using namespace nnwb;

class TestSweepForm : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void proposalsStayInTheSettingsRange() {
        SweepSpecForm form;
        form.setExperiment(Experiment::fromJson(test::tinyExperimentJson()).toJson(), "x.json");
        QVERIFY(form.fieldPicker()->findText("training.lrSchedule.floor") >= 0);
        QVERIFY(form.addField("training.lrSchedule.floor"));
        QVERIFY(form.addField("training.optimizer.learningRate"));
        const SweepDraft d = form.draft();
        QCOMPARE(int(d.params.size()), 2);
        const SettingSpec& floor = trainingSetting("lrSchedule.floor").spec;
        QVERIFY2(d.params[0].min >= floor.min && d.params[0].max <= floor.max,
                 qPrintable(QString("%1..%2").arg(d.params[0].min).arg(d.params[0].max)));
        QVERIFY(d.params[0].min < d.params[0].max);
        QVERIFY(!d.params[0].log);         // from 0
        QCOMPARE(d.params[1].min, 0.001);  // 0.01 / 10 .. 0.01 * 10, log
        QCOMPARE(d.params[1].max, 0.1);
        QVERIFY(d.params[1].log);
    }

    void theObjectiveSuitsTheExperiment() {
        SweepSpecForm form;
        nlohmann::json e = Experiment::fromJson(test::tinyExperimentJson()).toJson();
        form.setExperiment(e, "x.json");
        QCOMPARE(form.draft().objective, std::string("validation.loss"));
        e["validation"] = {{"mode", "walkforward"}, {"folds", 3}};
        form.setExperiment(e, "x.json");
        QCOMPARE(form.draft().objective, std::string("oos.loss"));
        QCOMPARE(form.draft().goal, std::string("min"));
    }
};

QTEST_MAIN(TestSweepForm)
#include "tst_sweep_form.moc"
