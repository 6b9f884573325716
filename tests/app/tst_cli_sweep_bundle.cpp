// Sweep bundles without a cluster (docs/slurm.md): export-bundle writes the spec, the data
// with its SHA-256, one experiment per trial and submit.sbatch; `sweep task` writes
// results/I/ (atomic result.json, epochs, model, checkpoint); `sweep import` is idempotent (a
// second import changes nothing), refuses a truncated result, a result of another sweep and
// changed data with file and reason while importing the rest, and an import killed inside its
// transaction leaves the store as it was; a task ended by SIGTERM is recorded as interrupted
// and, run again (a requeue), goes on from its checkpoint to the same numbers as an
// uninterrupted task; a rung's task (--until-epoch) pauses with its checkpoint and the next
// run goes on from it; sweep submit --per-generation refuses bad input before anything runs.
// On a 700-bar cut of the bundled EURUSD file, a tiny dense network.
#include <QtTest>

#include <signal.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "app/runs/RunStore.h"
#include "app/sweep/BundleTask.h"
#include "app/sweep/SweepStore.h"
#include "common/BarExperiments.h"
#include "common/CliRun.h"
#include "common/DataCut.h"
#include "common/KilledImport.h"
#include "common/SweepStoreDump.h"
#include "common/TestUtil.h"
#include "model/TrainCheckpoint.h"
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
        nnwb::test::writeDataCut((dir_ + "/cut.csv").toStdString(), 700);
        const json e = nnwb::test::barExperiment("dense", {{"file", "cut.csv"}, {"window", 6}},
                                                 nnwb::test::denseLayers(8),
                                                 {{"epochs", 3}, {"batchSize", 16}, {"seed", 5}});
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

    // A rung's task (--until-epoch): it stops after that epoch as "paused" with its checkpoint,
    // trains nothing when run again for the same rung, and the next run (the last rung) goes on
    // from the checkpoint to the trial's end.
    void rungTaskPausesAndResumes() {
        const QString b = bundle("rung");
        QVERIFY(!b.isEmpty());
        const std::string r = b.toStdString() + "/results/0/";
        auto first = runCli({"sweep", "task", b, "0", "--until-epoch", "1"});
        QVERIFY2(first.code == 0, qPrintable(first.out + first.err));
        json res = readJson(r + "result.json");
        QCOMPARE(res["status"].get<std::string>(), std::string("paused"));
        QCOMPARE(res["epochsDone"].get<int>(), 1);
        QVERIFY(fs::exists(r + "checkpoint.safetensors"));
        const std::string epochs = readText(r + "epochs.jsonl");
        auto again = runCli({"sweep", "task", b, "0", "--until-epoch", "1"});
        QVERIFY2(again.out.contains("paused after epoch 1 already"), qPrintable(again.out));
        QCOMPARE(readText(r + "epochs.jsonl"), epochs);
        // Imported now: running (the next rung goes on with it), not failed or complete.
        auto mid = import(b);
        QVERIFY2(mid.code == 0, qPrintable(mid.out + mid.err));
        {
            nnwb::RunStore store(db_.toStdString(), false);
            QCOMPARE(nnwb::SweepStore(store).trials(1)[0].state, nnwb::sweep::TrialState::Running);
        }
        QCOMPARE(task(b, 0), 0);
        res = readJson(r + "result.json");
        QCOMPARE(res["status"].get<std::string>(), std::string("complete"));
        QCOMPARE(res["resumedFrom"].get<int>(), 1);
        QCOMPARE(res["epochsDone"].get<int>(), 3);
        QCOMPARE(readText(r + "epochs.jsonl").substr(0, epochs.size()), epochs);
        auto end = import(b);
        QVERIFY2(end.out.contains("1 trials imported"), qPrintable(end.out));
        nnwb::RunStore store(db_.toStdString(), false);
        const auto t = nnwb::SweepStore(store).trials(1)[0];
        QCOMPARE(t.state, nnwb::sweep::TrialState::Complete);
        QCOMPARE(t.epochsDone, 3);
    }

    // sweep submit --per-generation refuses, before anything runs: the median pruner, a folder
    // holding a one-array bundle, a generation bundle of another spec or another K.
    void generationsRefuseBadInput() {
        // No cluster, whatever the machine has: sbatch and squeue that fail at once.
        const std::string bin = dir_.toStdString() + "/bin";
        fs::create_directories(bin);
        for (const char* tool : {"/squeue", "/sbatch"}) {
            writeText(bin + tool, "#!/bin/sh\necho 'no cluster in this test' >&2\nexit 1\n");
            fs::permissions(bin + tool, fs::perms::owner_all);
        }
        const QByteArray path = qgetenv("PATH");
        qputenv("PATH", QByteArray::fromStdString(bin) + ":" + path);
        const QStringList gen = {"--slurm", "--per-generation", "2", "--runs-db", db_};
        json s = readJson(spec_.toStdString());
        s["earlyTerminate"] = {{"type", "median"}};
        const QString median = dir_ + "/median.json";
        writeText(median.toStdString(), s.dump());
        auto m = runCli(QStringList{"sweep", "submit", median, dir_ + "/m"} + gen);
        QCOMPARE(m.code, 2);
        QVERIFY2(m.err.contains("median decides after every epoch"), qPrintable(m.err));
        QVERIFY(!fs::exists((dir_ + "/m").toStdString()));
        const QString one = bundle("one");
        auto o = runCli(QStringList{"sweep", "submit", spec_, one} + gen);
        QCOMPARE(o.code, 2);
        QVERIFY2(o.err.contains("a bundle of one array"), qPrintable(o.err));
        // No cluster here: the first run stops at squeue/sbatch, its bundle made.
        const QString g = dir_ + "/g";
        runCli(QStringList{"sweep", "submit", spec_, g} + gen);
        QCOMPARE(readJson((g + "/bundle.json").toStdString())["perGeneration"].get<int>(), 2);
        s = readJson(spec_.toStdString());
        s["seed"] = 99;
        const QString other = dir_ + "/other.json";
        writeText(other.toStdString(), s.dump());
        auto a = runCli(QStringList{"sweep", "submit", other, g} + gen);
        QCOMPARE(a.code, 2);
        QVERIFY2(a.err.contains("made from another spec"), qPrintable(a.err));
        auto k = runCli(
            {"sweep", "submit", spec_, g, "--slurm", "--per-generation", "3", "--runs-db", db_});
        QCOMPARE(k.code, 2);
        QVERIFY2(k.err.contains("runs generations of 2, not 3"), qPrintable(k.err));
        qputenv("PATH", path);
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
              " sweep task \"$SLURM_SUBMIT_DIR\" \"$SLURM_ARRAY_TASK_ID\" \"$@\"\n"})
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

    // An imported trial's run carries its data's provenance as a recorded run does (issue 41
    // §2: runs show said "data size 0 bytes, sha256 (empty), data bars 0" and "best epoch 2
    // ()"): the bundle's SHA-256 and size, the bars and monitor of the task's started line; a
    // started line whose SHA-256 is not the bundle data's is refused with the key.
    void importedTrialsKeepTheirDataProvenance() {
        const QString b = bundle("prov");
        QVERIFY(!b.isEmpty());
        QCOMPARE(task(b, 0), 0);
        QCOMPARE(task(b, 1), 0);
        const json data = readJson((b + "/bundle.json").toStdString()).at("data").at(0);
        const std::string r1 = (b + "/results/1/result.json").toStdString();
        json bad = readJson(r1);
        const json prov = bad.at("started").at("provenance");
        QVERIFY(prov.at("dataBars").get<int64_t>() > 0);
        bad["started"]["provenance"]["dataSha256"] = std::string(64, 'a');
        writeText(r1, bad.dump());
        auto r = import(b);
        QCOMPARE(r.code, 2);
        QVERIFY2(
            r.out.contains(QString::fromStdString(r1) + ": started.provenance.dataSha256 aaaa"),
            qPrintable(r.out));
        QVERIFY2(r.out.contains("1 trials imported"), qPrintable(r.out));
        r = runCli({"runs", "show", "1", "--runs-db", db_});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        // runs show groups its figures as the window does (41,373 bytes)
        QString size = QString::number(data.at("size").get<uint64_t>());
        for (int i = size.size() - 3; i > 0; i -= 3) size.insert(i, ',');
        const QString sha = QString::fromStdString(data.at("sha256").get<std::string>());
        QVERIFY2(r.out.contains(QRegularExpression("data size +" + size + " bytes, sha256 " + sha)),
                 qPrintable(r.out));
        QVERIFY2(r.out.contains(QRegularExpression(
                     "data bars +" + QString::number(prov.at("dataBars").get<int64_t>()) + ", " +
                     QRegularExpression::escape(
                         QString::fromStdString(prov.at("dataFirstBar").get<std::string>())))),
                 qPrintable(r.out));
        QVERIFY2(r.out.contains(QRegularExpression("best epoch +\\d+ \\(validation_loss\\)")),
                 qPrintable(r.out));
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
        // FILE:LINE:COLUMN where the copy ends.
        QVERIFY2(r.out.contains(QRegularExpression(
                     QRegularExpression::escape(QString::fromStdString(r0)) +
                     ":\\d+:\\d+: not valid JSON .*\\(a truncated or partial copy\\?\\)")),
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

    // Found by a hostile pass (issue 41): results the import trusted. Each is refused with its
    // file and reason (exit 2) and the trial is not imported from it.
    void untrustedResultsAreRefused() {
        const QString b = bundle("hostile");
        QVERIFY(!b.isEmpty());
        for (int i = 0; i < 4; ++i) QCOMPARE(task(b, i), 0);
        const std::string res = b.toStdString() + "/results/";
        auto path = [&](int i, const char* name) { return res + std::to_string(i) + "/" + name; };
        // The two trials' activations differ for a model of the wrong architecture.
        const json bj = readJson((b + "/bundle.json").toStdString());
        int tanhTrial = -1, reluTrial = -1;
        for (int i = 0; i < 4; ++i)
            (bj["trials"][i]["params"]["model.layers[0].activation"] == "tanh" ? tanhTrial
                                                                               : reluTrial) = i;
        QVERIFY(tanhTrial >= 0 && reluTrial >= 0);
        const std::string outside = dir_.toStdString() + "/outside";
        fs::create_directories(outside);
        fs::copy(res + std::to_string(tanhTrial), outside + "/task", fs::copy_options::recursive);
        // Each case: tamper, import, expect the refusal, put the file back.
        auto refused = [&](int trial, const std::string& file, const QString& reason,
                           const std::function<void()>& tamper) {
            const std::string folder = res + std::to_string(trial);
            const std::string held = dir_.toStdString() + "/held";
            fs::remove_all(held);
            fs::copy(folder, held, fs::copy_options::recursive);
            tamper();
            const auto r = import(b);
            fs::remove_all(folder);
            fs::rename(held, folder);
            QVERIFY2(r.code == 2, qPrintable(r.out + r.err));
            QVERIFY2(r.out.contains("refused: " + QString::fromStdString(file) + reason),
                     qPrintable(r.out));
            QVERIFY2(r.out.contains(", 1 refused"), qPrintable(r.out));
        };
        const std::string epochs0 = readText(path(0, "epochs.jsonl"));
        const json lastEpoch =
            json::parse(epochs0.substr(epochs0.rfind('\n', epochs0.size() - 2) + 1));
        refused(0, path(0, "epochs.jsonl"), ":4: epoch 4 is past the trial's 3 epochs", [&] {
            std::ofstream out(path(0, "epochs.jsonl"), std::ios::app);
            for (int e = 4; e <= 1000; ++e) {
                json j = lastEpoch;
                j["epoch"] = e;
                out << j.dump() << "\n";
            }
        });
        refused(1, path(1, "epochs.jsonl"), ":1: epoch 0 first", [&] {
            json j = lastEpoch;
            j["epoch"] = 0;
            j["validation"]["loss"] = -1e308;
            writeText(path(1, "epochs.jsonl"), j.dump() + "\n" + readText(path(1, "epochs.jsonl")));
        });
        refused(1, path(1, "epochs.jsonl"), ":3: validation.loss -1", [&] {
            std::string text = readText(path(1, "epochs.jsonl"));
            json j = lastEpoch;
            j["validation"]["loss"] = -1e308;
            writeText(path(1, "epochs.jsonl"),
                      text.substr(0, text.rfind('\n', text.size() - 2) + 1) + j.dump() + "\n");
        });
        refused(1, path(1, "result.json"), ": slurm.restartCount '99999999999999999999'", [&] {
            json r = readJson(path(1, "result.json"));
            r["slurm"]["restartCount"] = "99999999999999999999";
            writeText(path(1, "result.json"), r.dump());
        });
        // A complete task's end word that is no finished training (was stored as the run's
        // status as it came).
        refused(1, path(1, "result.json"), ": endStatus 'bogus' is not completed or stopped_early",
                [&] {
                    json r = readJson(path(1, "result.json"));
                    r["endStatus"] = "bogus";
                    writeText(path(1, "result.json"), r.dump());
                });
        refused(2, path(2, "model.safetensors"), ": is a symbolic link", [&] {
            fs::remove(path(2, "model.safetensors"));
            fs::create_symlink(outside + "/task/model.safetensors", path(2, "model.safetensors"));
        });
        refused(2, res + "2", ": is a symbolic link", [&] {
            fs::remove_all(res + "2");
            fs::create_symlink(outside + "/task", res + "2");
        });
        refused(3, path(3, "model.safetensors"), ": truncated", [&] {
            std::string noise(3000, '\0');
            uint32_t x = 7;
            for (char& c : noise) c = char((x = x * 1664525u + 1013904223u) >> 24);
            writeText(path(3, "model.safetensors"), noise);
        });
        refused(reluTrial, path(reluTrial, "model.safetensors"),
                ": its __metadata__.model is not the trial's model", [&] {
                    fs::copy_file(outside + "/task/model.safetensors",
                                  path(reluTrial, "model.safetensors"),
                                  fs::copy_options::overwrite_existing);
                });
        refused(0, "cannot read " + path(0, "epochs.jsonl"), ": not a regular file", [&] {
            fs::remove(path(0, "epochs.jsonl"));
            QCOMPARE(::mkfifo(path(0, "epochs.jsonl").c_str(), 0600), 0);
        });
        // None of the refused results reached the store; the untouched files import whole.
        const auto r = import(b);
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        auto show = runCli({"sweep", "show", "1", "--json", "--runs-db", db_});
        const json sj = json::parse(show.out.toStdString());
        QCOMPARE(sj["counts"]["complete"].get<int>(), 4);
        for (const auto& t : sj["trials"]) QCOMPARE(t["epochs"].get<int>(), 3);
    }

    void killedImportLeavesTheStoreAsItWas() {
        const QString b = bundle("kill");
        QVERIFY(!b.isEmpty());
        for (int i = 0; i < 4; ++i) QCOMPARE(task(b, i), 0);
        fs::rename((b + "/results/3").toStdString(), (dir_ + "/held").toStdString());
        QVERIFY(import(b).out.contains("3 trials imported"));
        fs::rename((dir_ + "/held").toStdString(), (b + "/results/3").toStdString());
        const std::string before = storeDump();
        nnwb::test::killImportInItsTransaction(b, db_);
        if (QTest::currentTestFailed()) return;
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
        // The kill can fall after epoch done + 1's checkpoint was saved and before its line
        // (its folder's fsync lies between them): that checkpoint is ahead of epochs.jsonl, and
        // the requeue drops it and trains from epoch 1 (dropCheckpointAheadOfEpochs). Else the
        // requeue goes on from epoch done's checkpoint.
        const int saved =
            nnwb::checkpointEpoch((b + "/results/0/checkpoint.safetensors").toStdString());
        QVERIFY2(saved == done || saved == done + 1, qPrintable(QString::number(saved)));
        // Interrupted is imported as failed, not lost.
        auto r = import(b);
        QVERIFY2(r.out.contains("1 trials imported"), qPrintable(r.out));
        // A requeue runs the task again: it goes on from the checkpoint.
        QCOMPARE(task(b, 0), 0);
        const json again = readJson((b + "/results/0/result.json").toStdString());
        QCOMPARE(again["status"].get<std::string>(), std::string("complete"));
        QCOMPARE(again["resumedFrom"].get<int>(), saved == done ? done : 0);
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
