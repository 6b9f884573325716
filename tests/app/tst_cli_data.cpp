// `nnwb-cli data FILE [--json]` run as a process: the text and JSON summaries of a fixture,
// and bad input reported as "FILE:LINE: problem" on stderr with exit code 2.
#include <QtTest>

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

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
        QVERIFY(r.err.isEmpty());
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o.keys(), (QStringList{"bars", "both", "buy", "first", "format", "gaps", "last",
                                        "sell", "timeframe"}));
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
};

QTEST_GUILESS_MAIN(TestCliData)
#include "tst_cli_data.moc"
