// A bundle task killed between an epoch's checkpoint and that epoch's line in epochs.jsonl (a
// node crash in that instant: the trial process writes the checkpoint, then prints the line the
// task appends) and run again (Slurm's requeue): the task must not go on from a checkpoint
// whose epochs epochs.jsonl lacks; it trains the trial again from epoch 1, and the import takes
// its result with the losses of an uninterrupted run (docs/slurm.md).
#include <QtTest>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "common/CliRun.h"
#include "common/TestUtil.h"

using nlohmann::json;
using nnwb::test::runCli;
namespace fs = std::filesystem;

namespace {

std::string readText(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

class BundleTaskResumeTest : public QObject {
    Q_OBJECT

private slots:
    void checkpointAheadOfItsEpochLinesTrainsAgain() {
        const std::string d = nnwb::test::tempDir();
        std::ofstream(d + "/tiny.json") << R"({"formatVersion":1,"name":"tiny","data":{
            "source":"synthetic","samples":96,"units":2,"window":3},"model":{"layers":[
            {"type":"dense","neurons":4},{"type":"dense","neurons":3}]},
            "training":{"epochs":4,"batchSize":8,"seed":3}})";
        std::ofstream(d + "/spec.json")
            << R"({"name":"s","experiment":"tiny.json","method":"random","seed":3,"runCap":1,
            "parameters":[{"path":"training.optimizer.learningRate","min":0.001,"max":0.3}]})";
        const QString b = QString::fromStdString(d + "/b");
        auto ex = runCli({"sweep", "export-bundle", QString::fromStdString(d + "/spec.json"), b});
        QVERIFY2(ex.code == 0, qPrintable(ex.out + ex.err));
        const std::string r = d + "/b/results/0/";
        // Two epochs with their checkpoint; then epoch 2's line and the result go, as a kill
        // right after the checkpoint of epoch 2 leaves them.
        auto paused = runCli({"sweep", "task", b, "0", "--until-epoch", "2"});
        QVERIFY2(paused.code == 0, qPrintable(paused.out + paused.err));
        const std::string epochs = readText(r + "epochs.jsonl");
        QCOMPARE(int(std::count(epochs.begin(), epochs.end(), '\n')), 2);
        std::ofstream(r + "epochs.jsonl") << epochs.substr(0, epochs.find('\n') + 1);
        fs::remove(r + "result.json");

        auto task = runCli({"sweep", "task", b, "0"});
        QVERIFY2(task.code == 0, qPrintable(task.out + task.err));
        const json result = json::parse(readText(r + "result.json"));
        QCOMPARE(result["status"].get<std::string>(), std::string("complete"));
        QCOMPARE(result["resumedFrom"].get<int>(), 0);  // trained again from epoch 1
        const json trial = json::parse(readText(d + "/b/bundle.json"))["trials"][0];
        auto plain = runCli(
            {"train", "--experiment",
             QString::fromStdString(d + "/b/" + trial["experiment"].get<std::string>()), "--json"});
        QCOMPARE(plain.code, 0);
        const QStringList want = plain.out.split('\n', Qt::SkipEmptyParts);
        std::ifstream in(r + "epochs.jsonl");
        int n = 0;
        for (std::string l; std::getline(in, l); ++n) {
            const json got = json::parse(l), w = json::parse(want.value(n).toStdString());
            QCOMPARE(got["epoch"].get<int>(), n + 1);
            QCOMPARE(got["train"]["loss"], w["train"]["loss"]);
            QCOMPARE(got["validation"]["loss"], w["validation"]["loss"]);
        }
        QCOMPARE(n, 4);
        auto imp = runCli(
            {"sweep", "import", b, "--runs-db", QString::fromStdString(d + "/store/runs.sqlite")});
        QVERIFY2(imp.code == 0 && imp.out.contains("1 trials imported"),
                 qPrintable(imp.out + imp.err));
    }
};

QTEST_GUILESS_MAIN(BundleTaskResumeTest)
#include "tst_bundle_task_resume.moc"
