// GUI: the Sweeps tab's form proposes ranges the loader takes (issue 41): a field's range comes
// from the setting's own range (training.lrSchedule.floor at 0 was offered -1..1, then refused
// as "outside [0, 10]"), and the objective starts as oos.loss for a walk-forward experiment
// (it started as validation.loss), validation.loss for a holdout one, and stays as the user
// picked it. Its ensemble field (issue 44) writes "ensemble": K and shows the loader's refusals
// under the fields, worded as `nnwb-cli sweep run` words them. In its scrolling pane the mouse
// wheel changes only a focused box (the Run cap changed while the pane was scrolled).
#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QSpinBox>
#include <QTableWidget>
#include <QWheelEvent>
#include <QtTest>

#include <fstream>

#include "common/BarExperiments.h"
#include "common/TestUtil.h"
#include "model/Experiment.h"
#include "model/TrainingSettings.h"
#include "model/data/DataConfig.h"
#include "model/sweep/SweepSpec.h"
#include "ui/PaneScrollArea.h"
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

    // In its scrolling pane the form's boxes take the mouse wheel only when focused: the wheel
    // over the Run cap box changed the run cap while the user scrolled the pane. The ignored
    // wheel is left for QApplication to hand on to the scroll area.
    void theWheelChangesOnlyAFocusedBox() {
        auto* form = new SweepSpecForm;
        form->setExperiment(Experiment::fromJson(test::tinyExperimentJson()).toJson(), "x.json");
        PaneScrollArea pane(form);
        pane.resize(400, 150);
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        QSpinBox* cap = form->runCapBox();
        // Qt's default WheelFocus gives a box the focus as the wheel reaches it.
        QCOMPARE(cap->focusPolicy(), Qt::StrongFocus);
        QCOMPARE(form->methodBox()->focusPolicy(), Qt::StrongFocus);
        const int before = cap->value();
        auto wheel = [cap] {
            const QPointF at(cap->width() / 2.0, cap->height() / 2.0);
            QWheelEvent e(at, cap->mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton,
                          Qt::NoModifier, Qt::NoScrollPhase, false);
            QApplication::sendEvent(cap, &e);
            return e.isAccepted();
        };
        QVERIFY(!cap->hasFocus());
        QVERIFY(!wheel());  // ignored: the pane's
        QCOMPARE(cap->value(), before);
        cap->setFocus();
        QTRY_VERIFY(cap->hasFocus());
        wheel();
        QCOMPARE(cap->value(), before + 1);  // focused: the box's
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

    // The form's ensemble field: K members of every trial in the spec, and each refusal of the
    // key (model/sweep/SweepSpec.h ensembleProblem) under the fields as the loader words it.
    void theEnsembleFieldWritesTheKeyOrTheLoadersRefusal() {
        const std::string dir = test::tempDir();
        nlohmann::json e = test::barExperiment("ens", {{"file", defaultDataFile()}, {"window", 6}},
                                               test::denseLayers(4), {{"epochs", 1}});
        const std::string file = dir + "/e.json";
        std::ofstream(file) << e.dump();
        SweepSpecForm form;
        form.setExperiment(Experiment::fromJson(e, dir).toJson(), QString::fromStdString(file));
        QVERIFY(form.addField("training.batchSize"));
        QCOMPARE(form.ensembleBox()->maximum(), sweep::SweepSpec::kMaxPopulation);
        QVERIFY(!nlohmann::json::parse(form.specText().toStdString()).contains("ensemble"));
        form.ensembleBox()->setValue(4);
        QCOMPARE(form.ensembleProblem(), QString());
        auto load = [&form, &dir] {
            return sweep::SweepSpec::fromJson(nlohmann::json::parse(form.specText().toStdString()),
                                              "spec.json", dir);
        };
        QCOMPARE(load().ensemble, 4);
        auto refused = [&](const QString& shown) {
            QVERIFY(shown.startsWith("ensemble: "));
            auto* label = form.findChild<QLabel*>("sweepFormProblem");
            QVERIFY(label && !label->isHidden());
            QCOMPARE(label->text(), shown);
            try {
                load();
                QFAIL("the spec loaded");
            } catch (const sweep::SpecError& err) {  // the CLI's message: "spec.json: " + shown
                QCOMPARE(QString::fromStdString(err.what()), "spec.json: " + shown);
            }
        };
        form.populationBox()->setValue(2);
        refused(
            "ensemble: an ensemble trial is its own population of 4 seeds, so trials are not "
            "packed; leave population at 1");
        form.populationBox()->setValue(1);
        QVERIFY(form.findChild<QLabel*>("sweepFormProblem")->isHidden());
        e["validation"] = {{"mode", "walkforward"}, {"folds", 3}};
        std::ofstream(file) << e.dump();
        form.setExperiment(Experiment::fromJson(e, dir).toJson(), QString::fromStdString(file));
        refused(
            "ensemble: not with a walk-forward base experiment (use nnwb-cli walkforward "
            "--ensemble)");
        e["validation"]["scheme"] = "cpcv";
        std::ofstream(file) << e.dump();
        form.setExperiment(Experiment::fromJson(e, dir).toJson(), QString::fromStdString(file));
        refused(
            "ensemble: not with a walk-forward base experiment (use nnwb-cli walkforward "
            "--ensemble)");
        // K outside 2..4096 and seedsPerConfig > 1 cannot come from the form (1 is "off", the
        // box stops at 4096, it writes no seedsPerConfig): the loader's words for them.
        QCOMPARE(sweep::ensembleProblem(4097, 1, 1, false, true),
                 std::string("must be an integer in 2..4096 (the members of each trial's "
                             "ensemble; leave it out for trials of one model)"));
        QCOMPARE(sweep::ensembleProblem(1, 1, 1, false, true),
                 sweep::ensembleProblem(4097, 1, 1, false, true));
        QCOMPARE(sweep::ensembleProblem(3, 1, 2, false, true),
                 std::string("not with seedsPerConfig > 1 (an ensemble trial already trains 3 "
                             "seeds of its configuration)"));
    }
};

QTEST_MAIN(TestSweepForm)
#include "tst_sweep_form.moc"
