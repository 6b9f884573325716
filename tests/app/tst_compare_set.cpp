// Comparison sets without training: the summary table and its best-of-column marks, the
// per-epoch CSV, the set file (save, reopen with histories, embedded experiments, errors named
// by key, atomic save) and the shared data section every run trains on.
#include <QtTest>

#include <filesystem>
#include <fstream>

#include "app/compare/ComparisonCsv.h"
#include "app/compare/ComparisonSet.h"
#include "app/compare/ComparisonSummary.h"
#include "common/TestUtil.h"
#include "model/AtomicFile.h"
#include "model/FigureText.h"

using namespace nnwb;
using json = nlohmann::json;

namespace {

EpochReport epoch(int n, double valLoss, double valMissed, double valAccuracy, double seconds) {
    EpochReport r;
    r.epoch = n;
    r.taskMetrics = true;
    r.seconds = seconds;
    r.samplesPerSecond = 1000.0 / seconds;
    r.train.samples = 800;
    r.train.loss = valLoss + 0.01;
    r.train.accuracyPct = valAccuracy + 1;
    r.train.missedPct = valMissed - 1;
    r.validation.samples = 200;
    r.validation.loss = valLoss;
    r.validation.missedPct = valMissed;
    r.validation.accuracyPct = valAccuracy;
    r.train.signalCount = r.validation.signalCount = 40;  // enough signals: accuracy defined
    r.validation.confusion[1][2] = n;
    return r;
}

RunRecord record(const std::string& label, size_t parameters) {
    RunRecord r;
    r.label = label;
    r.deviceId = "cpu";
    r.deviceName = "CPU (native)";
    r.parameters = parameters;
    r.trainSamples = 800;
    r.validationSamples = 200;
    r.status = RunStatus::Completed;
    return r;
}

std::string writeExperiment(const std::string& dir, const std::string& name) {
    json j = test::tinyExperimentJson(2);
    j["name"] = name;
    const std::string path = dir + "/" + name + ".json";
    std::ofstream(path) << j.dump(2);
    return path;
}

}  // namespace

class CompareSet : public QObject {
    Q_OBJECT
private slots:
    void summaryMarksBestOfEachColumn() {
        RunRecord a = record("a", 1000), b = record("b", 5000);
        a.epochs = {epoch(1, 0.30, 40, 50, 2.0), epoch(2, 0.25, 45, 55, 2.0)};
        b.epochs = {epoch(1, 0.20, 50, 60, 4.0), epoch(2, 0.28, 35, 52, 4.0)};
        RunRecord c = record("c", 0);  // failed before it built its network
        c.status = RunStatus::Failed;
        c.parameters = 0;
        const auto rows = summarize({a, b, c});
        QCOMPARE(rows.size(), size_t(3));
        QCOMPARE(*rows[0].values[kSecondsPerEpoch], 2.0);
        QCOMPARE(*rows[1].values[kBestLoss], 0.20);
        QCOMPARE(*rows[0].values[kBestLoss], 0.25);
        QCOMPARE(*rows[1].values[kLastLoss], 0.28);
        QCOMPARE(*rows[1].values[kBestMissed], 35.0);
        QCOMPARE(*rows[1].values[kBestAccuracy], 60.0);
        // lower is better for loss, missed, seconds, parameters; higher for accuracy, samples/s
        QVERIFY(rows[0].best[kParameters] && !rows[1].best[kParameters]);
        QVERIFY(rows[0].best[kSecondsPerEpoch] && rows[0].best[kSamplesPerSecond]);
        QVERIFY(rows[1].best[kBestLoss] && !rows[0].best[kBestLoss]);
        QVERIFY(rows[0].best[kLastLoss] && rows[1].best[kLastMissed]);
        QVERIFY(rows[1].best[kBestAccuracy] && rows[0].best[kLastAccuracy]);
        for (int col = 0; col < kSummaryColumns; ++col) {
            QVERIFY(!rows[2].best[col]);
            QVERIFY(!rows[2].values[col]);
        }
        QCOMPARE(rows[2].status, std::string("failed"));
        QCOMPARE(formatSummaryValue(kParameters, 1234567.0), std::string("1,234,567"));
        QCOMPARE(formatSummaryCell(rows[1], kBestAccuracy), std::string("60.00 (40)"));
        QCOMPARE(formatSummaryCell(rows[1], kBestLoss), formatSummaryValue(kBestLoss, 0.2));
        QCOMPARE(formatSummaryValue(kBestLoss, std::nullopt), std::string("–"));
    }
    // An epoch whose network emitted no signal, or fewer than the minimum (issue 24: "100.00 %"
    // from one signal), has no accuracy ("n/a" with the count), not 0 % or 100 %: it is not the
    // best or the last accuracy, and a run without enough signals has none at all.
    void accuracyWithoutSignalsIsNotAvailable() {
        RunRecord a = record("a", 10), b = record("b", 10), c = record("c", 10);
        a.epochs = {epoch(1, 0.3, 100, 0, 1.0), epoch(2, 0.2, 100, 0, 1.0)};
        for (EpochReport& e : a.epochs) e.validation.signalCount = 0;
        b.epochs = {epoch(1, 0.3, 60, 40, 1.0), epoch(2, 0.2, 100, 0, 1.0)};
        b.epochs[1].validation.signalCount = 0;  // the last epoch emitted none
        c.epochs = {epoch(1, 0.3, 60, 30, 1.0)};
        const auto rows = summarize({a, b, c});
        QCOMPARE(formatSummaryValue(kBestAccuracy, rows[0].values[kBestAccuracy]),
                 std::string("n/a"));
        QCOMPARE(formatSummaryValue(kLastAccuracy, rows[0].values[kLastAccuracy]),
                 std::string("n/a"));
        QCOMPARE(formatSummaryValue(kBestAccuracy, rows[1].values[kBestAccuracy]),
                 std::string("40.00"));
        QCOMPARE(formatSummaryValue(kLastAccuracy, rows[1].values[kLastAccuracy]),
                 std::string("n/a"));
        // Missed is defined without signals (100 %: every fractal missed).
        QCOMPARE(formatSummaryValue(kLastMissed, rows[0].values[kLastMissed]),
                 std::string("100.00"));
        // The best-of-column marks ignore n/a: b's 40 beats c's 30; no last accuracy but c's.
        QVERIFY(rows[1].best[kBestAccuracy] && !rows[0].best[kBestAccuracy]);
        QVERIFY(!rows[0].best[kLastAccuracy] && !rows[1].best[kLastAccuracy]);
        QCOMPARE(formatSummaryCell(rows[0], kBestAccuracy), std::string("n/a (0)"));
        QCOMPARE(formatSummaryCell(rows[1], kBestAccuracy), std::string("40.00 (40)"));
        QCOMPARE(formatSummaryCell(rows[1], kLastAccuracy), std::string("n/a (0)"));

        // One signal that hit is 100 %, but says nothing: n/a with its count.
        RunRecord d = record("d", 10);
        d.epochs = {epoch(1, 0.3, 90, 100, 1.0), epoch(2, 0.3, 60, 45, 1.0)};
        d.epochs[0].validation.signalCount = 1;
        d.epochs[1].validation.signalCount = kMinSignalsForAccuracy - 1;
        const auto few = summarize({d});
        QCOMPARE(formatSummaryCell(few[0], kBestAccuracy),
                 "n/a (" + std::to_string(kMinSignalsForAccuracy - 1) + ")");
        d.epochs[1].validation.signalCount = kMinSignalsForAccuracy;
        QCOMPARE(formatSummaryCell(summarize({d})[0], kBestAccuracy),
                 "45.00 (" + std::to_string(kMinSignalsForAccuracy) + ")");
    }
    // Issue 24: "stopped early" (early stopping completed the run) and "stopped" (the user's
    // Stop) are two ends, named as the run store and `nnwb-cli runs` name them.
    void earlyStoppingIsNotAStop() {
        RunRecord early = record("early", 10), user = record("user", 10);
        early.epochs = {epoch(1, 0.3, 40, 50, 1.0), epoch(2, 0.2, 30, 60, 1.0)};
        early.epochs.back().stoppedEarly = true;
        user.epochs = early.epochs;
        user.epochs.back().stoppedEarly = false;
        user.status = RunStatus::Stopped;
        QCOMPARE(std::string(early.statusText()), std::string("stopped early"));
        QCOMPARE(std::string(user.statusText()), std::string("stopped"));
        const auto rows = summarize({early, user});
        QCOMPARE(rows[0].status, std::string("stopped early"));
        QCOMPARE(rows[1].status, std::string("stopped"));
    }
    void summaryNeedsTwoValuesToMark() {
        RunRecord a = record("a", 10);
        a.epochs = {epoch(1, 0.3, 40, 50, 1.0)};
        const auto rows = summarize({a});
        for (int col = 0; col < kSummaryColumns; ++col) QVERIFY(!rows[0].best[col]);
        const auto same = summarize({a, a});  // equal values: nothing to mark
        for (int col = 0; col < kSummaryColumns; ++col) QVERIFY(!same[0].best[col]);
    }
    void csvHasOneRowPerRunAndEpoch() {
        RunRecord a = record("a, the first", 10), b = record("b", 20);
        a.epochs = {epoch(1, 0.3, 40, 50, 1.0), epoch(2, 0.2, 30, 60, 1.0)};
        b.epochs = {epoch(1, 0.25, 45, 55, 0.5)};
        b.validationSamples = 0;
        const std::string csv = comparisonCsv({a, b});
        const QStringList lines = QString::fromStdString(csv).trimmed().split('\n');
        QCOMPARE(lines.size(), 4);
        QVERIFY(lines[0].startsWith("run,device,epoch,seconds,samples_per_second,train_loss"));
        // loss, accuracy, signals, missed for training then validation
        QVERIFY2(lines[1].startsWith("\"a, the first\",cpu,1,1,1000,0.31,51,40,39,0.3,50,40,40"),
                 qPrintable(lines[1]));
        QVERIFY2(lines[3].startsWith("b,cpu,1,0.5,2000,0.26,56,40,44,,,,"), qPrintable(lines[3]));
        const std::string path = test::tempDir() + "/runs.csv";
        writeComparisonCsv(path, {a, b});
        QCOMPARE(readFile(path), csv);
    }
    void saveAndReopenWithHistories() {
        const std::string dir = test::tempDir();
        std::filesystem::create_directories(dir + "/exp");
        const std::string fileA = writeExperiment(dir + "/exp", "alpha");
        const std::string fileB = writeExperiment(dir + "/exp", "beta");
        ComparisonSet set;
        set.name = "alpha vs beta";
        set.epochs = 3;
        set.addRun(Experiment::load(fileA), fileA, "opencl:0:0");
        set.addRun(Experiment::load(fileB), fileB);
        set.addRun(Experiment::load(fileB), fileB);  // the same file twice: a unique label
        Experiment inlineExp = Experiment::fromJson(test::tinyExperimentJson(1));
        inlineExp.name = "unsaved";
        set.addRun(inlineExp, {});
        QCOMPARE(set.runs[2].record.label, std::string("beta #2"));
        QCOMPARE(set.runs[3].record.label, std::string("unsaved"));
        set.runs[0].record.deviceName = "pthread";
        set.runs[0].record.parameters = 123;
        set.runs[0].record.trainSamples = 800;
        set.runs[0].record.validationSamples = 200;
        set.runs[0].record.epochs = {epoch(1, 0.3, 40, 50, 1.0), epoch(2, 0.2, 30, 60, 1.5)};
        set.runs[1].record.status = RunStatus::Failed;
        set.runs[1].record.error = "model: layer 1 (conv) does not fit";

        const std::string path = dir + "/set.nnwbcmp.json";
        set.save(path);
        const json saved = json::parse(readFile(path));
        QCOMPARE(saved["format"].get<std::string>(), std::string("nnwb-comparison"));
        QCOMPARE(saved["runs"][0]["experiment"].get<std::string>(), std::string("exp/alpha.json"));
        QVERIFY(saved["runs"][3]["experiment"].is_object());

        const ComparisonSet back = ComparisonSet::load(path);
        QCOMPARE(back.name, set.name);
        QCOMPARE(back.epochs, 3);
        QCOMPARE(back.runs.size(), size_t(4));
        for (size_t i = 0; i < 4; ++i) {
            QCOMPARE(back.runs[i].record.label, set.runs[i].record.label);
            QCOMPARE(back.runs[i].experimentFile, set.runs[i].experimentFile);
            QCOMPARE(back.runs[i].experiment.training.device,
                     set.runs[i].experiment.training.device);
            QCOMPARE(back.runs[i].experiment.model, set.runs[i].experiment.model);
        }
        QCOMPARE(back.runs[0].record.deviceId, std::string("opencl:0:0"));
        const RunRecord& r0 = back.runs[0].record;
        QCOMPARE(r0.deviceName, std::string("pthread"));
        QCOMPARE(r0.parameters, size_t(123));
        QCOMPARE(r0.epochs.size(), size_t(2));
        QCOMPARE(r0.epochs[1].seconds, 1.5);
        QCOMPARE(r0.epochs[1].validation.accuracyPct, 60.0);
        QCOMPARE(r0.epochs[1].validation.confusion[1][2], int64_t(2));
        QCOMPARE(back.runs[1].record.status, RunStatus::Failed);
        QCOMPARE(back.runs[1].record.error, set.runs[1].record.error);
        QCOMPARE(back.runs[3].experiment.name, std::string("unsaved"));
        // Saving what was read gives the same file.
        const std::string again = dir + "/again.json";
        back.save(again);
        QCOMPARE(json::parse(readFile(again)), saved);
    }
    void failedSaveKeepsTheOldFile() {
        const std::string dir = test::tempDir();
        ComparisonSet set;
        set.addRun(Experiment::fromJson(test::tinyExperimentJson(1)), {});
        const std::string path = dir + "/set.json";
        set.save(path);
        const std::string before = readFile(path);
        std::filesystem::create_directories(dir + "/blocked.json/inside");
        try {
            set.save(dir + "/blocked.json");
            QFAIL("saving over a directory must fail");
        } catch (const ComparisonError& e) {
            QVERIFY2(QString(e.what()).contains("blocked.json"), e.what());
        }
        QCOMPARE(readFile(path), before);
    }
    void loadErrorsNameTheKey() {
        const std::string dir = test::tempDir();
        auto attempt = [&](const std::string& text) -> QString {
            const std::string path = dir + "/bad.json";
            std::ofstream(path) << text;
            try {
                ComparisonSet::load(path);
            } catch (const ComparisonError& e) {
                return QString::fromUtf8(e.what());
            }
            return {};
        };
        QVERIFY(attempt("{").contains("not valid JSON"));
        QVERIFY(attempt(R"({"format":"x","formatVersion":1,"runs":[]})").contains("format"));
        QVERIFY(attempt(R"({"format":"nnwb-comparison","formatVersion":9,"runs":[]})")
                    .contains("formatVersion"));
        const QString missing = attempt(
            R"({"format":"nnwb-comparison","formatVersion":1,"runs":[{"experiment":"nope.json"}]})");
        QVERIFY2(missing.contains("runs[0].experiment") && missing.contains("nope.json"),
                 qPrintable(missing));
        const std::string good = writeExperiment(dir, "good");
        const QString badHistory = attempt(
            R"({"format":"nnwb-comparison","formatVersion":1,"runs":[{"experiment":"good.json",
                "history":{"status":"done"}}]})");
        QVERIFY2(badHistory.contains("runs[0].history.status"), qPrintable(badHistory));
        const QString badEpoch = attempt(
            R"({"format":"nnwb-comparison","formatVersion":1,"runs":[{"experiment":"good.json",
                "history":{"epochs":[{"epoch":1}]}}]})");
        QVERIFY2(badEpoch.contains("runs[0].history.epochs[0]: seconds"), qPrintable(badEpoch));
    }
    void everyRunTrainsOnTheFirstRunsData() {
        const std::string dir = test::tempDir();
        std::filesystem::create_directories(dir + "/a");
        json ja = test::tinyExperimentJson(2);
        ja["data"] = {{"source", "file"}, {"file", "../prices.csv"}, {"window", 10}};
        std::ofstream(dir + "/a/a.json") << ja.dump();
        ComparisonSet set;
        set.epochs = 5;
        set.addRun(Experiment::load(dir + "/a/a.json"), dir + "/a/a.json");
        set.addRun(Experiment::fromJson(test::tinyExperimentJson(2)), {});
        const auto exps = set.trainingExperiments();
        QCOMPARE(exps.size(), size_t(2));
        for (const Experiment& e : exps) {
            QCOMPARE(e.data["file"].get<std::string>(),
                     std::filesystem::path(dir + "/prices.csv").lexically_normal().string());
            QCOMPARE(e.training.epochs, 5);
        }
        QCOMPARE(exps[1].data["window"].get<int>(), 10);
    }
};

QTEST_GUILESS_MAIN(CompareSet)
#include "tst_compare_set.moc"
