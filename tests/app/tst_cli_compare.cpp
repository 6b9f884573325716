// `nnwb-cli compare` as a user runs it: bad input exits 2 naming what and where before anything
// trains (an experiment with training.ensemble > 1 too); two experiments (files, or preset
// names) print a per-epoch table and the summary and --csv writes every run's epochs; a run
// that fails at run time is reported, the other runs finish and the exit status is 1.
#include <QtTest>

#include <fstream>

#include "common/CliRun.h"
#include "common/TestUtil.h"

using json = nlohmann::json;

class CliCompare : public QObject {
    Q_OBJECT
    static nnwb::test::CliResult run(const QStringList& args) {
        return nnwb::test::runCli(QStringList{"compare"} + args);
    }
    QString write(const QString& name, const json& j) {
        const QString path = dir_ + "/" + name + ".json";
        std::ofstream(path.toStdString()) << j.dump(2);
        return path;
    }
    json tiny(const std::string& name) {
        json j = nnwb::test::tinyExperimentJson(1);
        j["name"] = name;
        return j;
    }
    QString dir_;

private slots:
    void initTestCase() { dir_ = QString::fromStdString(nnwb::test::tempDir()); }

    void badInputExits2() {
        const QString a = write("a", tiny("a"));
        auto r = run({a});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("two or more"), qPrintable(r.err));
        r = run({a, "no-such-preset"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("no-such-preset"), qPrintable(r.err));
        r = run({a, a, "--device", "cpu", "--device", "cpu", "--device", "cpu"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--device"), qPrintable(r.err));
        r = run({a, a, "--device", "opencl:9:9"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("opencl:9:9"), qPrintable(r.err));
        r = run({a, a, "--epochs", "0"});
        QCOMPARE(r.code, 2);
        json broken = tiny("broken");
        broken["model"]["layers"][0]["window"] = 50;
        const QString b = write("broken", broken);
        r = run({a, b});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("broken.json") && r.err.contains("model"), qPrintable(r.err));
        QVERIFY(r.out.isEmpty());  // nothing trained
        // training.ensemble 2: compare trains one model per experiment, so it refuses instead
        // of comparing one seed as the ensemble (before: trained one model without a word).
        json ensemble = tiny("ens");
        ensemble["training"]["ensemble"] = 2;
        r = run({a, write("ens", ensemble)});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("ens.json: training.ensemble 2") &&
                     r.err.contains("nnwb-cli train --experiment FILE --save-model"),
                 qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
    }

    void twoRunsTableSummaryAndCsv() {
        const QString a = write("alpha", tiny("alpha"));
        json bj = tiny("beta");
        bj["model"]["layers"][0]["filters"] = 4;
        const QString b = write("beta", bj);
        const QString csv = dir_ + "/runs.csv";
        auto r = run({a, b, "--epochs", "2", "--csv", csv});
        QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
        for (const char* label : {"alpha", "beta"}) {
            QVERIFY2(QRegularExpression(QString("\\n%1\\s+started on cpu").arg(label))
                         .match(r.out)
                         .hasMatch(),
                     qPrintable(r.out));
            QVERIFY2(
                QRegularExpression(QString("\\n%1\\s+1/2\\s").arg(label)).match(r.out).hasMatch(),
                qPrintable(r.out));
            QVERIFY2(
                QRegularExpression(QString("\\n%1\\s+2/2\\s").arg(label)).match(r.out).hasMatch(),
                qPrintable(r.out));
        }
        QVERIFY(r.out.contains("summary"));
        QVERIFY(r.out.contains("best val loss"));
        QVERIFY(r.out.contains("completed"));
        QVERIFY(r.out.contains("*"));
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(f.readAll()).trimmed().split('\n');
        QCOMPARE(lines.size(), 5);
        QVERIFY(lines[0].startsWith("run,device,epoch"));
        QVERIFY(lines[1].startsWith("alpha,cpu,1,") || lines[1].startsWith("beta,cpu,1,"));
    }

    void failingRunIsReportedOthersFinish() {
        const QString a = write("steady", tiny("steady"));
        json bad = tiny("diverges");
        bad["training"]["optimizer"] = {{"type", "sgd"}, {"learningRate", 10}, {"momentum", 0.9}};
        bad["model"]["layers"][0]["activation"] = "none";
        bad["model"]["layers"][1]["activation"] = "none";
        const QString b = write("diverges", bad);
        auto r = run({a, b, "--epochs", "2"});
        QCOMPARE(r.code, 1);
        QVERIFY2(QRegularExpression("\\ndiverges\\s+FAILED: ").match(r.out).hasMatch(),
                 qPrintable(r.out));
        QVERIFY2(r.err.contains("diverges"), qPrintable(r.err));
        QVERIFY2(QRegularExpression("\\nsteady\\s+2/2\\s").match(r.out).hasMatch(),
                 qPrintable(r.out));
        QVERIFY(r.out.contains("failed"));
    }
};

QTEST_GUILESS_MAIN(CliCompare)
#include "tst_cli_compare.moc"
