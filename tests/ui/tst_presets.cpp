// GUI: Model ▸ Presets applies a preset as `nnwb-cli train --experiment PRESET` trains it (issue
// 24, part 4): its layers, training settings and name, as one undo step, so runs are named after
// the preset; the presets have the same names in Model ▸ Presets, the comparison's Add ▸ Preset
// menu and the CLI (the file's base name).
#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QUndoStack>
#include <QtTest>

#include "app/core/ExperimentDocument.h"
#include "app/core/Presets.h"
#include "common/TestUtil.h"
#include "ui/ComparisonView.h"
#include "ui/MainWindow.h"

using namespace nnwb;

namespace {

QStringList actionTexts(QMenu* menu) {
    QStringList out;
    for (QAction* a : menu->actions())
        if (!a->isSeparator() && a->isEnabled()) out << a->text();
    return out;
}

QMenu* menuTitled(QWidget* root, const QString& title) {
    for (QMenu* m : root->findChildren<QMenu*>())
        if (m->title() == title) return m;
    return nullptr;
}

}  // namespace

class TestPresets : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QCoreApplication::setOrganizationName(QStringLiteral("nnwb-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_presets"));
    }

    void presetBringsItsNameAndTrainingInOneStep() {
        MainWindow w;
        w.setConfirmDiscard(false);
        Experiment mine = Experiment::fromJson(test::tinyExperimentJson(1));
        mine.name = "mine";
        mine.training.optimizer.learningRate = 0.0003;
        w.document()->reset(mine);
        QMenu* presets = menuTitled(&w, QStringLiteral("&Presets"));
        QVERIFY(presets);
        QAction* single = nullptr;
        for (QAction* a : presets->actions())
            if (a->text() == QStringLiteral("attention-single-head")) single = a;
        QVERIFY2(single, qPrintable(actionTexts(presets).join(", ")));
        const Experiment preset = Experiment::load(presetPath(single->text()).toStdString());
        QVERIFY(preset.training.optimizer.learningRate != 0.0003);
        const nlohmann::json dataBefore = w.document()->experiment().data;

        const int steps = w.document()->undoStack()->count();
        single->trigger();
        const Experiment& now = w.document()->experiment();
        QCOMPARE(QString::fromStdString(now.name), QString::fromStdString(preset.name));
        QCOMPARE(now.training.toJson().dump(), preset.training.toJson().dump());
        QCOMPARE(now.model["layers"].dump(), preset.model["layers"].dump());
        QCOMPARE(now.data.dump(), dataBefore.dump());  // the data stays the user's
        QCOMPARE(w.document()->undoStack()->count(), steps + 1);

        w.document()->undoStack()->undo();
        QCOMPARE(QString::fromStdString(w.document()->experiment().name), QStringLiteral("mine"));
        QCOMPARE(w.document()->experiment().training.optimizer.learningRate, 0.0003);
        QCOMPARE(w.document()->experiment().model["layers"].dump(), mine.model["layers"].dump());
    }

    void presetNamesAreTheSameEverywhere() {
        MainWindow w;
        w.setConfirmDiscard(false);
        QMenu* model = menuTitled(&w, QStringLiteral("&Presets"));
        QMenu* comparison = menuTitled(w.comparisonView(), QStringLiteral("Preset"));
        QVERIFY(model && comparison);
        QStringList files;  // what `nnwb-cli train/compare` take: the files' base names
        for (const PresetInfo& p : listPresets()) files << QFileInfo(p.path).completeBaseName();
        QVERIFY(files.contains(QStringLiteral("attention-single-head")));
        QCOMPARE(actionTexts(model), files);
        QCOMPARE(actionTexts(comparison), files);
    }
};

QTEST_MAIN(TestPresets)
#include "tst_presets.moc"
