// The run store from the command line: `train` and `compare` record their runs (--runs-db,
// NNWB_RUNS_DB, --no-record, --name/--tags/--note), `runs list` (table, --json, --filter,
// --sort), `runs show`, `runs export --csv`, `runs rm`; a corrupt database gives one warning
// and training goes on with exit status 0.
#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <filesystem>
#include <fstream>

#include "app/runs/RunStore.h"
#include "common/CliRun.h"
#include "common/TestUtil.h"
#include "common/TinyExperiment.h"
#include "nnwb/TestPaths.h"

using nnwb::test::runCli;

class CliRunsTest : public QObject {
    Q_OBJECT
    QString dir_, db_, exp_;
    QJsonArray list(const QStringList& extra = {}) {
        auto r = runCli(QStringList{"runs", "list", "--json", "--runs-db", db_} + extra);
        if (r.code != 0) qWarning("%s", qPrintable(r.err));
        return QJsonDocument::fromJson(r.out.toUtf8()).array();
    }
private slots:
    void init() {
        dir_ = QString::fromStdString(nnwb::test::tempDir());
        db_ = dir_ + "/store/runs.sqlite";
        exp_ = dir_ + "/tiny.json";
        std::ofstream(exp_.toStdString())
            << nnwb::test::tinySyntheticExperiment(R"({"epochs":3,"batchSize":8})");
    }

    void trainRecordsAndRunsCommands() {
        auto r = runCli({"runs", "list", "--runs-db", db_});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("no runs recorded yet"), qPrintable(r.out));
        QVERIFY(!std::filesystem::exists(db_.toStdString()));  // reading creates nothing

        r = runCli({"train", "--experiment", exp_, "--runs-db", db_, "--name", "first", "--tags",
                    "small,cpu", "--note", "hello"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
        r = runCli({"train", "--experiment", exp_, "--runs-db", db_, "--epochs", "2"});
        QCOMPARE(r.code, 0);
        r = runCli({"train", "--experiment", exp_, "--runs-db", db_, "--no-record"});
        QCOMPARE(r.code, 0);

        QJsonArray runs = list();
        QCOMPARE(runs.size(), 2);
        const QJsonObject second = runs[0].toObject(), first = runs[1].toObject();  // newest first
        QCOMPARE(first["name"].toString(), QString("first"));
        QCOMPARE(first["tags"].toString(), QString("small,cpu"));
        QCOMPARE(first["note"].toString(), QString("hello"));
        QCOMPARE(first["status"].toString(), QString("completed"));
        QCOMPARE(first["epochs"].toInt(), 3);
        QCOMPARE(first["source"].toString(), QString("cli-train"));
        QCOMPARE(second["name"].toString(), QString("tiny"));
        QCOMPARE(second["epochs"].toInt(), 2);
        QVERIFY(first["bestValidationLoss"].toDouble() > 0);
        QVERIFY(first["bestEpoch"].toInt() >= 1);
        QVERIFY(first["experimentFile"].toString().endsWith("tiny.json"));
        const int id = first["id"].toInt();

        QCOMPARE(list({"--filter", "tag:small"}).size(), 1);
        QCOMPARE(list({"--filter", "status:failed"}).size(), 0);
        QCOMPARE(list({"--sort", "id"})[0].toObject()["id"].toInt(), id);
        r = runCli({"runs", "list", "--runs-db", db_, "--sort", "colour"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("unknown sort key 'colour'"), qPrintable(r.err));

        r = runCli({"runs", "list", "--runs-db", db_});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("first") && r.out.contains("completed") &&
                r.out.contains("2 of 2 runs"));

        r = runCli({"runs", "show", QString::number(id), "--json", "--runs-db", db_});
        QCOMPARE(r.code, 0);
        const QJsonObject show = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(show["epochReports"].toArray().size(), 3);
        QCOMPARE(show["epochReports"][0]["learningRate"].toDouble(), 0.001);
        QCOMPARE(show["experiment"]["name"].toString(), QString("tiny"));
        QCOMPARE(show["bundles"].toArray().size(), 2);
        QString lastModel;
        for (const auto& b : show["bundles"].toArray())
            if (b.toObject()["kind"] == "last") lastModel = b.toObject()["path"].toString();
        QVERIFY(QFile::exists(lastModel));
        QCOMPARE(show["device"]["id"].toString(), QString("cpu"));

        r = runCli({"runs", "show", QString::number(id), "--runs-db", db_});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("best epoch") && r.out.contains("last model"));

        const QString csv = dir_ + "/run.csv";
        r = runCli({"runs", "export", QString::number(id), "--csv", csv, "--runs-db", db_});
        QCOMPARE(r.code, 0);
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(QString(f.readAll()).trimmed().split('\n').size(), 4);

        r = runCli({"runs", "show", "999", "--runs-db", db_});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("no run 999"));
        r = runCli({"runs", "rm", QString::number(id), "--runs-db", db_});
        QCOMPARE(r.code, 0);
        QVERIFY(!QFile::exists(lastModel));
        QCOMPARE(list().size(), 1);
    }

    // A run whose network emitted no signal has no accuracy: `runs list` and `runs show` say
    // "n/a (0)" with the signal count (they printed 0.00), and --json has null for the best
    // validation accuracy and 0 signals.
    void accuracyWithoutSignalsIsNotAvailable() {
        int64_t id = 0;
        {
            nnwb::RunStore store(db_.toStdString());
            nnwb::StoredRun run;
            run.name = "silent";
            run.source = "cli-train";
            run.experiment = nlohmann::json::object();
            run.deviceId = "cpu";
            run.deviceName = "native";
            run.trainSamples = 80;
            run.validationSamples = 20;
            run.epochsPlanned = 2;
            run.startedAt = nnwb::utcNowText();
            id = store.insertRun(run);
            for (int n = 1; n <= 2; ++n) {
                nnwb::StoredEpoch e;
                e.learningRate = 0.001;
                nnwb::EpochReport& r = e.report;
                r.epoch = n;
                r.taskMetrics = true;
                r.seconds = 0.1;
                for (nnwb::EpochMetrics* m : {&r.train, &r.validation}) {
                    m->samples = 20;
                    m->loss = 0.5 / n;
                    m->missedPct = 100;  // every fractal missed, no signal emitted
                    m->accuracyPct = 0;
                    m->signalCount = 0;
                    m->patterns = 5;
                }
                store.addEpoch(id, e, 1);
            }
            store.finishRun(id, nnwb::runstatus::kCompleted, "", 1);
        }
        auto r = runCli({"runs", "list", "--runs-db", db_});
        QCOMPARE(r.code, 0);
        QString row;
        for (const QString& line : r.out.split('\n'))
            if (line.contains("silent")) row = line;
        // … val loss, val acc % (signals), val missed %: "0.25000  n/a (0)  100.00"
        QVERIFY2(row.contains(QRegularExpression("0\\.25000 +n/a \\(0\\) +100\\.00")),
                 qPrintable(r.out));
        QCOMPARE(list()[0].toObject()["bestValidationAccuracy"].type(), QJsonValue::Null);
        QCOMPARE(list()[0].toObject()["bestValidationAccuracySignals"].toInt(-1), 0);

        r = runCli({"runs", "show", QString::number(id), "--runs-db", db_});
        QCOMPARE(r.code, 0);
        int epochRows = 0;
        for (const QString& line : r.out.split('\n')) {
            if (!line.contains(QRegularExpression("^ +[12]  "))) continue;
            ++epochRows;
            // acc % and val acc % are n/a, missed % and val missed % 100.00
            QVERIFY2(
                line.contains(QRegularExpression("n/a \\(0\\) +n/a \\(0\\) +100\\.00 +100\\.00")),
                qPrintable(line));
        }
        QCOMPARE(epochRows, 2);
    }

    void environmentChoosesTheStore() {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("NNWB_RUNS_DB", db_);
        p.setProcessEnvironment(env);
        p.start(NNWB_CLI_PATH, {"train", "--experiment", exp_, "--epochs", "1"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        QCOMPARE(list().size(), 1);
    }

    void compareRecordsEveryRun() {
        const QString other = dir_ + "/other.json";
        QFile::copy(exp_, other);
        auto r =
            runCli({"compare", exp_, other, "--epochs", "2", "--runs-db", db_, "--tags", "pair"});
        QCOMPARE(r.code, 0);
        const QJsonArray runs = list();
        QCOMPARE(runs.size(), 2);
        for (const auto& v : runs) {
            const QJsonObject o = v.toObject();
            QCOMPARE(o["source"].toString(), QString("cli-compare"));
            QCOMPARE(o["epochs"].toInt(), 2);
            QCOMPARE(o["tags"].toString(), QString("pair"));
            QVERIFY(!o["comparison"].toString().isEmpty());
        }
        QCOMPARE(runs[0].toObject()["comparison"], runs[1].toObject()["comparison"]);
    }

    void corruptStoreWarnsAndTrains() {
        std::filesystem::create_directories((dir_ + "/store").toStdString());
        std::ofstream(db_.toStdString()) << std::string(2048, 'z');
        auto r = runCli({"train", "--experiment", exp_, "--runs-db", db_});
        QCOMPARE(r.code, 0);
        QCOMPARE(r.out.count(QRegularExpression("^epoch ", QRegularExpression::MultilineOption)),
                 3);
        QCOMPARE(r.err.count("warning"), 1);
        // issue 24: the run is kept in a side file until the store can take it
        QVERIFY2(r.err.contains("corrupt") && r.err.contains("this run is kept in") &&
                     r.err.contains("runs-pending/"),
                 qPrintable(r.err));
        r = runCli({"runs", "list", "--runs-db", db_});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("corrupt"), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(CliRunsTest)
#include "tst_cli_runs.moc"
