// nnwb-cli's ensemble outputs keep the 20-signal rule (issue 42 §1; kMinSignalsForAccuracy of
// model/FigureText.h): an accuracy of 1 to 19 signals reads n/a, as everywhere else. On a cut
// of 700 bars of the bundled file, one epoch of a tiny network: train --population 2 --ensemble
// (validation share 0.08) prints each row's accuracy with its signals ("n/a (7 signals, fewer than
// 20)"), and the walkforward --ensemble table (test windows of 15 bars) has n/a in its accuracy
// column where the row's signals are fewer than 20. Before, both printed the share (e.g. "28.57%",
// "44.44").
#include <QtTest>

#include <algorithm>
#include <regex>
#include <string>

#include <nlohmann/json.hpp>

#include "common/BarExperiments.h"
#include "common/CliFixture.h"
#include "common/TestUtil.h"

using json = nlohmann::json;

class CliFewSignalsTest : public QObject, nnwb::test::CliFixture {
    Q_OBJECT
    QString experiment_, walkForward_;
    int few_ = 0, many_ = 0;  // accuracies checked below and from 20 signals

    // An accuracy against the signals it is a share of.
    void check(const std::string& accuracy, unsigned long count, const QString& line) {
        if (count < 20) {
            QVERIFY2(accuracy == "n/a", qPrintable(line));
            if (count > 0) ++few_;
        } else {
            QVERIFY2(accuracy != "n/a" && std::stod(accuracy) >= 0, qPrintable(line));
            ++many_;
        }
    }

private Q_SLOTS:
    void initTestCase() {
        dir_ = QString::fromStdString(nnwb::test::tempDir());
        writeCut("cut.csv", 700);
        json e = nnwb::test::tinyMt5Experiment("few", 1);
        json holdout = e;
        holdout["data"]["validationShare"] = 0.08;  // 56 validation samples
        experiment_ = write("holdout.json", holdout.dump(2));
        e["validation"] = {{"mode", "walkforward"}, {"folds", 3}, {"embargo", 2}};
        walkForward_ = write("walkforward.json", e.dump(2));
    }

    void ensembleTrainRows() {
        few_ = many_ = 0;
        const auto r =
            run({"train", "--experiment", experiment_, "--population", "2", "--vary", "seed=1..2",
                 "--ensemble", "--save-model", path("ens.safetensors"), "--no-record"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        // "NAME: validation loss X  accuracy TEXT  missed ...", TEXT from accuracyText.
        static const std::regex row(
            R"(: validation loss [0-9.]+  accuracy (n/a|[0-9.]+ %) \(([0-9,]+) signals?[^)]*\)  missed)");
        int rows = 0;
        for (const QString& l : r.out.split('\n')) {
            if (!l.contains(": validation loss")) continue;
            ++rows;
            std::smatch m;
            const std::string s = l.toStdString();
            QVERIFY2(std::regex_search(s, m, row), qPrintable(l));
            std::string accuracy = m[1].str();
            if (accuracy != "n/a") accuracy = accuracy.substr(0, accuracy.size() - 2);  // " %"
            std::string count = m[2].str();  // "1,234": grouped
            count.erase(std::remove(count.begin(), count.end(), ','), count.end());
            check(accuracy, std::stoul(count), l);
        }
        QCOMPARE(rows, 3);  // the ensemble, the best and the median member
        QVERIFY2(few_ > 0,
                 qPrintable("no row with 1 to 19 signals: the case is not tested\n" + r.out));
        QVERIFY2(many_ > 0, qPrintable("no row with 20 signals or more\n" + r.out));
    }

    void ensembleWalkForwardTable() {
        few_ = many_ = 0;
        const auto r =
            run({"walkforward", "--experiment", walkForward_, "--population", "2", "--vary",
                 "seed=1..2", "--ensemble", "--test-length", "15", "--no-record"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const int table = r.out.indexOf("the ensemble against its members");
        QVERIFY2(table >= 0, qPrintable(r.out));
        int rows = 0;
        // Label, loss, acc %, miss %, signals, trades, net points, win %, PF.
        for (const QString& l : r.out.mid(table).split('\n')) {
            if (!l.startsWith("ensemble of") && !l.startsWith("single seed") &&
                !l.startsWith("median of") && !l.startsWith("best member"))
                continue;
            ++rows;
            const QStringList t = l.split(' ', Qt::SkipEmptyParts);
            QVERIFY2(t.size() > 8, qPrintable(l));
            check(t[t.size() - 7].toStdString(), t[t.size() - 5].toULong(), l);
        }
        QCOMPARE(rows, 4);
        QVERIFY2(few_ > 0,
                 qPrintable("no row with 1 to 19 signals: the case is not tested\n" + r.out));
        QVERIFY2(many_ > 0, qPrintable("no row with 20 signals or more\n" + r.out));
    }
};

QTEST_GUILESS_MAIN(CliFewSignalsTest)
#include "tst_cli_few_signals.moc"
