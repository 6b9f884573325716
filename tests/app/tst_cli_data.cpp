// `nnwb-cli data FILE [--json]` run as a process: the text and JSON summaries of a fixture,
// bad input reported as "FILE:LINE: problem" on stderr with exit code 2, and what a file cannot
// give at load: the minimum number of bars ("needs at least 54 bars, file has 19") and the
// features constant on it (tick volume 0 on every bar of the bundled EURUSD file).
#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

#include <sys/stat.h>

#include "nnwb/TestPaths.h"

class TestCliData : public QObject {
    Q_OBJECT

    struct Run {
        int code = -1;
        QString out, err;
    };
    Run run(const QStringList& args) {
        QProcess p;
        p.start(NNWB_CLI_PATH, QStringList{"data"} + args);
        Run r;
        if (!p.waitForFinished(60000)) return r;
        r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
        r.out = QString::fromUtf8(p.readAllStandardOutput());
        r.err = QString::fromUtf8(p.readAllStandardError());
        return r;
    }
    static QString fixture(const char* name) { return QString(NNWB_TEST_FIXTURES) + "/" + name; }

private slots:
    void json() {
        const Run r = run({fixture("mt4.csv"), "--json"});
        QCOMPARE(r.code, 0);
        // 6 bars: too few for the default settings (54), said on stderr.
        QVERIFY2(r.err.contains("needs at least 54 bars, file has 6"), qPrintable(r.err));
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o.keys(),
                 (QStringList{"bars", "both", "buy", "constantFeatures", "enoughBars", "first",
                              "format", "gaps", "last", "minimumBars", "sell", "timeframe"}));
        QCOMPARE(o["minimumBars"].toInt(), 54);
        QCOMPARE(o["enoughBars"].toBool(), false);
        QCOMPARE(o["format"].toString(), QString("mt4"));
        QCOMPARE(o["bars"].toInt(), 6);
        QCOMPARE(o["first"].toString(), QString("2020-03-02 10:00"));
        QCOMPARE(o["last"].toString(), QString("2020-03-02 15:00"));
        QCOMPARE(o["timeframe"].toInt(), 3600);
        QCOMPARE(o["gaps"].toInt(), 0);
        // highs 1.101 1.102 1.103 1.1028 1.1015 1.1005: a sell fractal at bar 2;
        // lows 1.099 1.0995 1.1 1.101 1.098 1.0985: a buy fractal at bar 4.
        QCOMPARE(o["buy"].toInt(), 1);
        QCOMPARE(o["sell"].toInt(), 1);
        QCOMPARE(o["both"].toInt(), 0);
    }
    void text() {
        const Run r = run({fixture("mt5_utf16le.csv")});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains(
            QRegularExpression("^format: +mt5$", QRegularExpression::MultilineOption)));
        QVERIFY(
            r.out.contains(QRegularExpression("^bars: +6$", QRegularExpression::MultilineOption)));
        QVERIFY(r.out.contains(
            QRegularExpression("^first: +2020-03-02 10:00$", QRegularExpression::MultilineOption)));
        QVERIFY(r.out.contains(
            QRegularExpression("^timeframe: +3600 s", QRegularExpression::MultilineOption)));
    }
    // A 19-bar export of the bundled file: the minimum shown at load, and the zero volume.
    void minimumAndConstantFeatures() {
        QFile in(QStringLiteral(NNWB_RESOURCE_DIR "/data/EURUSD_H1_2017-2018.csv"));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QByteArray head;
        for (int i = 0; i < 20; ++i) head += in.readLine();  // header + 19 bars
        QTemporaryDir dir;
        const QString path = dir.filePath("EURUSD_19.csv");
        QFile out(path);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(head);
        out.close();
        Run r = run({path});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains(QRegularExpression(
                     "^minimum: +needs at least 54 bars, file has 19 \\(too few\\)",
                     QRegularExpression::MultilineOption)),
                 qPrintable(r.out));
        QVERIFY2(r.err.contains("EURUSD_19.csv: too few bars: this experiment needs at least 54 "
                                "bars, file has 19"),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains("warning: EURUSD_19.csv: feature tickVolume is 0 on every bar"),
                 qPrintable(r.err));
        r = run({path, "--json"});
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o["minimumBars"].toInt(), 54);
        QVERIFY(o["constantFeatures"].toArray().contains(QJsonValue("tickVolume")));
        // The whole file: enough bars, tick volume the only constant feature.
        r = run({QStringLiteral(NNWB_RESOURCE_DIR "/data/EURUSD_H1_2017-2018.csv"), "--json"});
        const QJsonObject all = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(all["enoughBars"].toBool(), true);
        QCOMPARE(all["constantFeatures"].toArray(), QJsonArray({"tickVolume"}));
        // An experiment's window changes the minimum: 33 + 8 + 1.
        const QString e = dir.filePath("e.json");
        QFile ef(e);
        QVERIFY(ef.open(QIODevice::WriteOnly));
        ef.write(R"({"formatVersion": 1, "name": "w8", "data": {"window": 8},
                     "model": {"layers": [{"type": "dense", "neurons": 3}]}})");
        ef.close();
        r = run({path, "--experiment", e, "--json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).object()["minimumBars"].toInt(), 42);
    }

    void badInput() {
        Run r = run({fixture("bad_high_low.csv"), "--json"});
        QCOMPARE(r.code, 2);
        QVERIFY(r.out.isEmpty());
        QCOMPARE(r.err, QString("bad_high_low.csv:3: high 1.0712 is below low 1.0720\n"));
        r = run({fixture("no_such_file.csv")});
        QCOMPARE(r.code, 2);
        QCOMPARE(r.err, QString("no_such_file.csv:0: cannot open %1: No such file or directory\n")
                            .arg(QDir::cleanPath(fixture("no_such_file.csv"))));
        r = run({});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("usage"));
    }
    // Issue 41: /dev/zero was read until 2 GiB (or std::bad_alloc), a FIFO blocked forever.
    // Refused at once, naming the file.
    void endlessFilesRefused() {
        QElapsedTimer t;
        t.start();
        Run r = run({"/dev/zero"});
        QCOMPARE(r.code, 2);
        QCOMPARE(r.err, QString("zero:0: /dev/zero is not a regular file (a device, FIFO or "
                                "socket)\n"));
        QTemporaryDir dir;
        const QString fifo = dir.path() + "/bars.csv";
        QCOMPARE(mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
        r = run({fifo});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("bars.csv:0: " + fifo + " is not a regular file"),
                 qPrintable(r.err));
        QVERIFY2(t.elapsed() < 10000, qPrintable(QString::number(t.elapsed())));
    }
};

QTEST_GUILESS_MAIN(TestCliData)
#include "tst_cli_data.moc"
