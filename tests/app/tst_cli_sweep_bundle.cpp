// Sweep bundles without a cluster (docs/slurm.md): export-bundle writes the spec, the data
// with its SHA-256, one experiment per trial and submit.sbatch; `sweep task` writes
// results/I/ (atomic result.json, epochs, model, checkpoint); `sweep import` is idempotent (a
// second import changes nothing), refuses a truncated result, a result of another sweep and
// changed data with file and reason while importing the rest, and an import killed inside its
// transaction leaves the store as it was; a task ended by SIGTERM is recorded as interrupted
// and, run again (a requeue), goes on from its checkpoint to the same numbers as an
// uninterrupted task. On a 700-bar cut of the bundled EURUSD file, a tiny dense network.
#include <QtTest>

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "app/runs/RunStore.h"
#include "app/sweep/BundleTask.h"
#include "app/sweep/SweepStore.h"
#include "common/CliRun.h"
#include "common/SweepStoreDump.h"
#include "common/TestUtil.h"
#include "model/data/DataConfig.h"

using nlohmann::json;
using nnwb::test::runCli;
namespace fs = std::filesystem;

namespace {

json readJson(const std::string& path) {
    std::ifstream in(path);
    return json::parse(in);
}

std::string readText(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeText(const std::string& path, const std::string& text) {
    std::ofstream(path) << text;
}

}  // namespace

class CliSweepBundleTest : public QObject {
    Q_OBJECT
    QString dir_, db_, spec_;

    // A store's sweeps, trials and runs as text (what an import may change).
    std::string storeDump() const { return nnwb::test::sweepStoreDump(db_.toStdString()); }
    QString bundle(const QString& name, const QStringList& extra = {}) {
        const QString b = dir_ + "/" + name;
        auto r = runCli(QStringList{"sweep", "export-bundle", spec_, b} + extra);
        if (r.code != 0) qWarning("%s%s", qPrintable(r.out), qPrintable(r.err));
        return r.code == 0 ? b : QString();
    }
    int task(const QString& b, int i) {
        auto r = runCli({"sweep", "task", b, QString::number(i)});
        if (r.code != 0) qWarning("%s%s", qPrintable(r.out), qPrintable(r.err));
        return r.code;
    }
    nnwb::test::CliResult import(const QString& b) {
        return runCli({"sweep", "import", b, "--runs-db", db_});
    }

private Q_SLOTS:
    void init() {
        dir_ = QString::fromStdString(nnwb::test::tempDir());
        db_ = dir_ + "/store/runs.sqlite";
        std::ifstream in(nnwb::defaultDataFile());
        std::string cut, line;
        for (int i = 0; i < 701 && std::getline(in, line); ++i) cut += line + "\n";
        writeText((dir_ + "/cut.csv").toStdString(), cut);
        const json e = {{"formatVersion", 2},
                        {"name", "dense"},
                        {"data", {{"file", "cut.csv"}, {"window", 6}}},
                        {"model",
                         {{"layers",
                           {{{"type", "dense"}, {"neurons", 8}, {"activation", "tanh"}},
                            {{"type", "dense"}, {"neurons", 3}, {"activation", "sigmoid"}}}}}},
                        {"training", {{"epochs", 3}, {"batchSize", 16}, {"seed", 5}}}};
        writeText((dir_ + "/exp.json").toStdString(), e.dump(2));
        const json s = {{"name", "bundle test"},
                        {"experiment", "exp.json"},
                        {"method", "random"},
                        {"seed", 4},
                        {"runCap", 4},
                        {"parameters",
                         {{{"path", "training.optimizer.learningRate"},
                           {"min", 0.001},
                           {"max", 0.1},
                           {"log", true}},
                          {{"path", "model.layers[0].activation"}, {"values", {"tanh", "relu"}}}}}};
        spec_ = dir_ + "/spec.json";
        writeText(spec_.toStdString(), s.dump(2));
    }

    // The task's device from Slurm's GPU assignment.
    void taskDeviceFollowsSlurmsGpu() {
        using nnwb::taskDevice;
        QCOMPARE(taskDevice("opencl:0", "1", nullptr), std::string("opencl:0:1"));
        QCOMPARE(taskDevice("opencl:0", "1", "0"), std::string("opencl:0:1"));
        QCOMPARE(taskDevice("opencl:2", nullptr, "3,4"), std::string("opencl:2:3"));
        QCOMPARE(taskDevice("opencl:0", "", ""), std::string("opencl:0:0"));
        QCOMPARE(taskDevice("opencl:0", "gpu", nullptr), std::string("opencl:0:0"));
        QCOMPARE(taskDevice("opencl:1:2", "0", "0"), std::string("opencl:1:2"));
        QCOMPARE(taskDevice("cpu", "1", "1"), std::string("cpu"));
    }

    void exportTaskImportTwice() {
        const QString b = bundle("b", {"--concurrent", "3", "--cpus-per-task", "2", "--gpu",
                                       "--time", "10", "--mem", "1G", "--partition", "short"});
        QVERIFY(!b.isEmpty());
        const std::string sbatch = readText((b + "/submit.sbatch").toStdString());
        for (const char* want :
             {"#SBATCH --array=0-3%3\n", "#SBATCH --cpus-per-task=2\n", "#SBATCH --gres=gpu:1\n",
              "#SBATCH --time=10\n", "#SBATCH --mem=1G\n", "#SBATCH --partition=short\n",
              "#SBATCH --requeue\n", "#SBATCH --signal=B:TERM@120\n",
              " sweep task \"$SLURM_SUBMIT_DIR\" \"$SLURM_ARRAY_TASK_ID\"\n"})
            QVERIFY2(sbatch.find(want) != std::string::npos, want);
        const json bj = readJson((b + "/bundle.json").toStdString());
        QCOMPARE(int(bj["trials"].size()), 4);
        std::set<std::string> ids;
        for (const auto& t : bj["trials"]) ids.insert(t["id"].get<std::string>());
        QCOMPARE(int(ids.size()), 4);
        QCOMPARE(int(bj["trials"][0]["id"].get<std::string>().size()), 64);
        QCOMPARE(bj["data"][0]["file"].get<std::string>(), std::string("data/cut.csv"));
        QCOMPARE(int(bj["data"][0]["sha256"].get<std::string>().size()), 64);
        for (int i = 0; i < 4; ++i) QCOMPARE(task(b, i), 0);
        const json r0 = readJson((b + "/results/0/result.json").toStdString());
        QCOMPARE(r0["status"].get<std::string>(), std::string("complete"));
        QCOMPARE(r0["epochsDone"].get<int>(), 3);
        QVERIFY(fs::exists((b + "/results/0/model.safetensors").toStdString()));
        QVERIFY(fs::exists((b + "/results/0/checkpoint.safetensors").toStdString()));

        auto first = import(b);
        QCOMPARE(first.code, 0);
        QVERIFY2(first.out.contains("4 trials imported, 0 unchanged"), qPrintable(first.out));
        const std::string after = storeDump();
        QTest::qWait(1100);  // a time written again would differ
        auto second = import(b);
        QCOMPARE(second.code, 0);
        QVERIFY2(second.out.contains("0 trials imported, 4 unchanged"), qPrintable(second.out));
        QCOMPARE(storeDump(), after);
        auto show = runCli({"sweep", "show", "1", "--json", "--runs-db", db_});
        const json sj = json::parse(show.out.toStdString());
        QCOMPARE(sj["counts"]["complete"].get<int>(), 4);
        // A trial's value is the best of its epochs' objective (validation loss), as a local
        // sweep's.
        int lastIsNotBest = 0;
        for (const auto& t : sj["trials"]) {
            const std::string epochs = b.toStdString() + "/results/" +
                                       std::to_string(t["number"].get<int>()) + "/epochs.jsonl";
            std::ifstream in(epochs);
            std::string line;
            double best = 1e300, last = 0;
            while (std::getline(in, line)) {
                last = json::parse(line)["validation"]["loss"].get<double>();
                best = std::min(best, last);
            }
            QCOMPARE(t["value"].get<double>(), best);
            lastIsNotBest += last != best;
        }
        qInfo("%d of 4 trials had a better epoch than their last", lastIsNotBest);
        nnwb::RunStore store(db_.toStdString(), false);
        const auto runs = store.list();
        QCOMPARE(int(runs.size()), 4);
        const auto run = store.get(runs.front().id);
        QVERIFY(run && !run->bundles.empty());  // the trial's model came with it
        QCOMPARE(run->epochs.size(), size_t(3));
    }

    void badResultsAreRefusedTheRestImported() {
        const QString b = bundle("bad");
        QVERIFY(!b.isEmpty());
        for (int i = 0; i < 3; ++i) QCOMPARE(task(b, i), 0);
        const std::string r0 = (b + "/results/0/result.json").toStdString();
        const std::string text = readText(r0);
        writeText(r0, text.substr(0, text.size() / 2));  // a partial copy
        const std::string r1 = (b + "/results/1/result.json").toStdString();
        json other = readJson(r1);
        other["bundle"] = "0123456789abcdef";
        writeText(r1, other.dump());
        auto r = import(b);
        QCOMPARE(r.code, 2);
        QVERIFY2(r.out.contains(QString::fromStdString(r0) + ": not valid JSON"),
                 qPrintable(r.out));
        QVERIFY2(r.out.contains(QString::fromStdString(r1) + ": a result of another sweep"),
                 qPrintable(r.out));
        QVERIFY2(
            r.out.contains("1 trials imported, 0 unchanged, 1 without a result yet, 2 refused"),
            qPrintable(r.out));
        // Data that changed since the bundle was made: nothing is imported.
        const std::string before = storeDump();
        writeText(r0, text);
        std::ofstream((b + "/data/cut.csv").toStdString(), std::ios::app) << "\n";
        r = import(b);
        QCOMPARE(r.code, 2);
        QVERIFY2(r.out.contains("data/cut.csv: its SHA-256 is"), qPrintable(r.out));
        QCOMPARE(storeDump(), before);
    }

    void killedImportLeavesTheStoreAsItWas() {
        const QString b = bundle("kill");
        QVERIFY(!b.isEmpty());
        for (int i = 0; i < 4; ++i) QCOMPARE(task(b, i), 0);
        fs::rename((b + "/results/3").toStdString(), (dir_ + "/held").toStdString());
        QVERIFY(import(b).out.contains("3 trials imported"));
        fs::rename((dir_ + "/held").toStdString(), (b + "/results/3").toStdString());
        const std::string before = storeDump();
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("NNWB_TEST_IMPORT_STALL_S", "60");
        p.setProcessEnvironment(env);
        p.start(NNWB_CLI_PATH, {"sweep", "import", b, "--runs-db", db_});
        QVERIFY(p.waitForStarted());
        QTest::qWait(3000);  // inside its transaction by now (it stalls after the first trial)
        QCOMPARE(p.state(), QProcess::Running);
        ::kill(pid_t(p.processId()), SIGKILL);
        p.waitForFinished();
        QCOMPARE(storeDump(), before);
        auto r = import(b);
        QVERIFY2(r.out.contains("1 trials imported, 3 unchanged"), qPrintable(r.out));
    }

    void termedTaskResumesFromItsCheckpoint() {
        // Longer epochs (about 0.6 s each), so SIGTERM comes mid-run.
        std::ifstream in(nnwb::defaultDataFile());
        std::string cut, line;
        for (int i = 0; i < 3001 && std::getline(in, line); ++i) cut += line + "\n";
        writeText((dir_ + "/cut.csv").toStdString(), cut);
        json e = readJson((dir_ + "/exp.json").toStdString());
        e["data"]["window"] = 24;
        e["model"]["layers"][0]["neurons"] = 256;
        e["training"]["epochs"] = 6;
        e["training"]["batchSize"] = 1;
        writeText((dir_ + "/exp.json").toStdString(), e.dump(2));
        const QString b = bundle("term");
        QVERIFY(!b.isEmpty());
        fs::copy(b.toStdString(), (dir_ + "/whole").toStdString(), fs::copy_options::recursive);
        QCOMPARE(task(dir_ + "/whole", 0), 0);  // the same trial, uninterrupted

        QProcess p;
        p.start(NNWB_CLI_PATH, {"sweep", "task", b, "0"});
        QVERIFY(p.waitForStarted());
        const std::string epochs = (b + "/results/0/epochs.jsonl").toStdString();
        QElapsedTimer t;
        t.start();
        auto lines = [&] {
            const std::string text = readText(epochs);
            return std::count(text.begin(), text.end(), '\n');
        };
        while (t.elapsed() < 60000 && lines() < 2) QTest::qWait(10);
        ::kill(pid_t(p.processId()), SIGTERM);
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 143);
        const json termed = readJson((b + "/results/0/result.json").toStdString());
        QCOMPARE(termed["status"].get<std::string>(), std::string("interrupted"));
        const int done = termed["epochsDone"].get<int>();
        QVERIFY2(done >= 2 && done < 6, qPrintable(QString::number(done)));
        // Interrupted is imported as failed, not lost.
        auto r = import(b);
        QVERIFY2(r.out.contains("1 trials imported"), qPrintable(r.out));
        // A requeue runs the task again: it goes on from the checkpoint.
        QCOMPARE(task(b, 0), 0);
        const json again = readJson((b + "/results/0/result.json").toStdString());
        QCOMPARE(again["status"].get<std::string>(), std::string("complete"));
        QVERIFY(again["resumedFrom"].get<int>() >= done);
        QCOMPARE(readText(epochs).size() > 0, true);
        std::ifstream a(epochs), w((dir_ + "/whole/results/0/epochs.jsonl").toStdString());
        std::string la, lw;
        int n = 0;
        while (std::getline(w, lw)) {
            QVERIFY(std::getline(a, la));
            const json ja = json::parse(la), jw = json::parse(lw);
            QCOMPARE(ja["epoch"].get<int>(), ++n);
            QCOMPARE(ja["train"]["loss"].get<double>(), jw["train"]["loss"].get<double>());
            QCOMPARE(ja["validation"]["loss"].get<double>(),
                     jw["validation"]["loss"].get<double>());
        }
        QCOMPARE(n, 6);
        QVERIFY(!std::getline(a, la));
        // The re-import upgrades the failed trial to complete.
        r = import(b);
        QVERIFY2(r.out.contains("1 trials imported, 0 unchanged"), qPrintable(r.out));
        QVERIFY(storeDump().find("0 complete") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(CliSweepBundleTest)
#include "tst_cli_sweep_bundle.moc"
