// Atomic saves: experiments (model and document), comparison sets, weights (file and training
// worker) and the low-level writeFileAtomic. A save into a read-only folder, or over a folder,
// fails with a message that says why, leaves the previous file byte for byte and leaves no
// temporary file. Runs as root too: ReadOnlyDir drops the effective user so the folder really is
// read-only.
#include <QtTest>

#include <QSignalSpy>

#include <filesystem>
#include <fstream>
#include <thread>

#include "app/compare/ComparisonSet.h"
#include "app/core/ExperimentDocument.h"
#include "app/core/MetaTypes.h"
#include "app/core/TrainingWorker.h"
#include "common/TestUtil.h"
#include "common/TextHelpers.h"
#include "compute/CpuBackend.h"
#include "model/AtomicFile.h"
#include "model/Experiment.h"
#include "model/NetworkWeights.h"

using namespace nnwb;
using nnwb::test::contains;
namespace fs = std::filesystem;

namespace {

Experiment tiny(const std::string& name) {
    Experiment e = Experiment::fromJson(test::tinyExperimentJson(1, 16));
    e.name = name;
    return e;
}

// Entries of `dir` other than `keep` (leftover temporary files).
QStringList strays(const std::string& dir, const std::string& keep) {
    QStringList out;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().filename() != keep) out << QString::fromStdString(e.path().string());
    return out;
}

}  // namespace

class AtomicSavesTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { registerMetaTypes(); }

    // Experiment::save into a read-only folder: the reason, the old file intact, no temp file.
    void experimentSaveReadOnlyFolder() {
        const std::string dir = test::tempDir(), path = dir + "/e.json";
        tiny("old").save(path);
        const std::string before = readFile(path);
        std::string message;
        {
            test::ReadOnlyDir ro(dir);
            QVERIFY(ro.enforced());
            try {
                tiny("new").save(path);
            } catch (const std::runtime_error& e) {
                message = e.what();
            }
        }
        QVERIFY2(contains(message, "cannot save " + path), message.c_str());
        QVERIFY2(contains(message, "Permission denied"), message.c_str());
        QCOMPARE(readFile(path), before);
        QCOMPARE(Experiment::load(path).name, std::string("old"));
        QVERIFY2(strays(dir, "e.json").isEmpty(), qPrintable(strays(dir, "e.json").join(' ')));
    }

    // ComparisonSet::save into a read-only folder: ComparisonError with the reason, the old
    // set file intact and still loadable.
    void comparisonSetSaveReadOnlyFolder() {
        const std::string dir = test::tempDir(), path = dir + "/set.json";
        ComparisonSet set;
        set.name = "old";
        set.addRun(tiny("a"), "");
        set.addRun(tiny("b"), "", "cpu");
        set.save(path);
        const std::string before = readFile(path);
        set.name = "new";
        std::string message;
        {
            test::ReadOnlyDir ro(dir);
            QVERIFY(ro.enforced());
            try {
                set.save(path);
            } catch (const ComparisonError& e) {
                message = e.what();
            }
        }
        QVERIFY2(contains(message, "cannot save " + path), message.c_str());
        QVERIFY2(contains(message, "Permission denied"), message.c_str());
        QCOMPARE(readFile(path), before);
        QCOMPARE(ComparisonSet::load(path).name, std::string("old"));
        QVERIFY(strays(dir, "set.json").isEmpty());
    }

    // A failure at the last step (rename over a folder) removes the temporary file.
    void renameFailureRemovesTemporary() {
        const std::string dir = test::tempDir(), path = dir + "/target";
        fs::create_directory(path);
        std::string message;
        try {
            writeFileAtomic(path, "bytes");
        } catch (const std::runtime_error& e) {
            message = e.what();
        }
        QVERIFY2(contains(message, "rename failed"), message.c_str());
        QVERIFY(fs::is_directory(path));
        QVERIFY2(strays(dir, "target").isEmpty(), qPrintable(strays(dir, "target").join(' ')));
    }

    // Saves from several threads to one path never mix: the file is one complete version.
    void concurrentSavesDoNotMix() {
        const std::string dir = test::tempDir(), path = dir + "/w.bin";
        const std::string a(1 << 20, 'a'), b(1 << 20, 'b');
        std::vector<std::thread> threads;
        for (int i = 0; i < 4; ++i)
            threads.emplace_back([&, i] {
                for (int k = 0; k < 5; ++k) writeFileAtomic(path, i % 2 ? a : b);
            });
        for (auto& t : threads) t.join();
        const std::string got = readFile(path);
        QVERIFY(got == a || got == b);
        QVERIFY2(strays(dir, "w.bin").isEmpty(), qPrintable(strays(dir, "w.bin").join(' ')));
    }

    // saveWeightsFile into a read-only folder keeps the old weights file loadable and equal.
    void weightsSaveReadOnlyFolder() {
        CpuBackend be;
        Network net(Network::layersFromJson(tiny("w").model), Shape{4, 6});
        net.build(be, 2);
        net.initWeights(1);
        const std::string dir = test::tempDir(), path = dir + "/w.safetensors";
        saveWeightsFile(net, path);
        const std::string before = readFile(path);
        net.initWeights(2);  // different weights that must not reach the file
        std::string message;
        {
            test::ReadOnlyDir ro(dir);
            QVERIFY(ro.enforced());
            try {
                saveWeightsFile(net, path);
            } catch (const std::runtime_error& e) {
                message = e.what();
            }
        }
        QVERIFY2(contains(message, "cannot save " + path), message.c_str());
        QVERIFY2(contains(message, "Permission denied"), message.c_str());
        QCOMPARE(readFile(path), before);
        loadWeightsFile(net, path);  // still a valid weights file for this network
        QVERIFY(strays(dir, "w.safetensors").isEmpty());
    }

    // The document: a failed save returns the reason, keeps the file and stays modified.
    void documentSaveFailure() {
        const std::string dir = test::tempDir(), path = dir + "/doc.json";
        ExperimentDocument doc;
        doc.reset(tiny("first"));
        QString error;
        QVERIFY2(doc.save(QString::fromStdString(path), &error), qPrintable(error));
        const std::string before = readFile(path);
        doc.setName(QStringLiteral("second"));
        QVERIFY(doc.isModified());
        bool ok = true;
        {
            test::ReadOnlyDir ro(dir);
            QVERIFY(ro.enforced());
            ok = doc.save(QString(), &error);
        }
        QVERIFY(!ok);
        QVERIFY2(error.contains(QStringLiteral("Permission denied")), qPrintable(error));
        QVERIFY(doc.isModified());
        QCOMPARE(doc.experiment().name, std::string("second"));
        QCOMPARE(readFile(path), before);
        QVERIFY(strays(dir, "doc.json").isEmpty());
    }

    // The training worker's save: weightsSaved(false, reason), the old file intact.
    void workerWeightsSaveFailure() {
        TrainingWorker worker;
        QSignalSpy finished(&worker, &TrainingWorker::runFinished);
        QSignalSpy saved(&worker, &TrainingWorker::weightsSaved);
        worker.start(tiny("run"), std::make_shared<TrainControl>());
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.first().at(0).value<RunEnd>(), RunEnd::Completed);
        const std::string dir = test::tempDir(), path = dir + "/w.safetensors";
        worker.saveWeights(QString::fromStdString(path));
        QCOMPARE(saved.count(), 1);
        QVERIFY2(saved.first().at(0).toBool(), qPrintable(saved.first().at(1).toString()));
        const std::string before = readFile(path);
        {
            test::ReadOnlyDir ro(dir);
            QVERIFY(ro.enforced());
            worker.saveWeights(QString::fromStdString(path));
        }
        QCOMPARE(saved.count(), 2);
        QVERIFY(!saved.at(1).at(0).toBool());
        QVERIFY2(saved.at(1).at(1).toString().contains(QStringLiteral("Permission denied")),
                 qPrintable(saved.at(1).at(1).toString()));
        QCOMPARE(readFile(path), before);
    }
};

QTEST_GUILESS_MAIN(AtomicSavesTest)
#include "tst_atomic_saves.moc"
