// Run > Predict's Open Model File… (docs/ensembles.md, "In the window"): the Predict window
// opened with one model predicts with an ensemble bundle from a file instead, and its output is
// nnwb-cli predict's: the exported CSV is byte for byte `predict --csv` of the ensemble (with
// the agreement and spread columns), and the signals traded under minAgreement 1 give the
// trades of `predict --trading --min-agreement 1`; a single model file again drops the
// columns; an unreadable file is refused naming it and the model in use stays.
#include <QtTest>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/CliRun.h"
#include "common/TestUtil.h"
#include "model/ModelBundle.h"
#include "model/data/DataConfig.h"
#include "model/trading/TradingEvaluation.h"
#include "ui/AgreementStrip.h"
#include "ui/PredictDialog.h"
#include "ui/PriceChart.h"

using namespace nnwb;
using nlohmann::json;

class TestPredictModelFile : public QObject {
    Q_OBJECT
    QString dir_, data_, ensemble_, single_;

    QString write(const QString& name, const std::string& text) {
        const QString path = dir_ + "/" + name;
        std::ofstream(path.toStdString()) << text;
        return path;
    }
    static std::string read(const QString& path) {
        std::ifstream in(path.toStdString());
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    }
    static bool predictAndWait(PredictDialog& d, const QString& file) {
        QSignalSpy done(&d, &PredictDialog::finished);
        if (!file.isEmpty()) d.predictFile(file);
        return done.wait(120000) && done.front().front().toBool();
    }

private Q_SLOTS:
    void initTestCase() {
        dir_ = QString::fromStdString(test::tempDir());
        std::ifstream in(defaultDataFile());
        std::string text, line;
        for (int i = 0; i < 701 && std::getline(in, line); ++i) text += line + "\n";
        data_ = write("EURUSD_H1.csv", text);
        const json e = {{"formatVersion", 2},
                        {"name", "ens"},
                        {"data", {{"file", data_.toStdString()}, {"window", 6}}},
                        {"model",
                         {{"layers",
                           {{{"type", "dense"}, {"neurons", 16}, {"activation", "tanh"}},
                            {{"type", "dense"}, {"neurons", 3}, {"activation", "sigmoid"}}}}}},
                        {"training", {{"epochs", 2}, {"batchSize", 16}, {"seed", 5}}}};
        const QString exp = write("e.json", e.dump());
        ensemble_ = dir_ + "/ens.safetensors";
        single_ = dir_ + "/one.safetensors";
        auto r = test::runCli({"train", "--experiment", exp, "--population", "3", "--vary",
                               "seed=1..3", "--ensemble", "--save-model", ensemble_, "--no-record"},
                              300000);
        QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
        r = test::runCli({"train", "--experiment", exp, "--save-model", single_, "--no-record"},
                         300000);
        QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
    }

    void anEnsembleFileGivesPredictsOutput() {
        TradingSettings trading;
        trading.minAgreement = 1.0;
        PredictDialog d(
            std::make_shared<const ModelBundle>(ModelBundle::load(single_.toStdString())),
            QStringLiteral("cpu"), nullptr, trading);
        QVERIFY(predictAndWait(d, data_));
        QString error;
        QVERIFY2(d.openModelFile(ensemble_, &error), qPrintable(error));
        QVERIFY(d.windowTitle().contains("ens.safetensors"));
        QVERIFY(predictAndWait(d, {}));  // the file on show, predicted again with the ensemble
        QCOMPARE(d.result()->members, 3);
        QVERIFY(d.chart()->agreementStrip()->isVisibleTo(&d));

        const QString mine = dir_ + "/window.csv", cli = dir_ + "/cli.csv";
        QVERIFY2(d.exportCsv(mine, &error), qPrintable(error));
        auto r = test::runCli({"predict", "--model", ensemble_, "--data", data_, "--csv", cli});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const std::string csv = read(mine);
        QVERIFY(csv.rfind("time,close,none,buy,sell,signal,label,agreement,spread\n", 0) == 0);
        QCOMPARE(csv, read(cli));

        r = test::runCli({"predict", "--model", ensemble_, "--data", data_, "--trading",
                          "--min-agreement", "1", "--json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const json strategy = json::parse(r.out.toStdString())["trading"]["strategy"];
        QVERIFY(d.tradingReport());
        QCOMPARE(double(d.tradingReport()->strategy.trades), strategy["trades"].get<double>());
        QCOMPARE(d.tradingReport()->strategy.netPoints, strategy["netPoints"].get<double>());
        // minAgreement 1 leaves out signals some member votes against: fewer trades than at 0.
        r = test::runCli({"predict", "--model", ensemble_, "--data", data_, "--trading", "--json"});
        const json all = json::parse(r.out.toStdString())["trading"]["strategy"];
        QVERIFY2(strategy["trades"].get<double>() < all["trades"].get<double>(),
                 qPrintable(QString::fromStdString(strategy.dump() + " " + all.dump())));

        // A single model file again: no agreement, no such columns.
        QVERIFY2(d.openModelFile(single_, &error), qPrintable(error));
        QVERIFY(predictAndWait(d, {}));
        QCOMPARE(d.result()->members, 1);
        QVERIFY(!d.chart()->agreementStrip()->isVisibleTo(&d));
        QVERIFY2(d.exportCsv(mine, &error), qPrintable(error));
        QVERIFY(read(mine).rfind("time,close,none,buy,sell,signal,label\n", 0) == 0);
    }

    void anUnreadableFileIsRefusedAndTheModelStays() {
        PredictDialog d(
            std::make_shared<const ModelBundle>(ModelBundle::load(single_.toStdString())),
            QStringLiteral("cpu"));
        const QString bad = write("bad.safetensors", "not a bundle");
        QString error;
        QVERIFY(!d.openModelFile(bad, &error));
        QVERIFY2(error.contains("bad.safetensors"), qPrintable(error));
        QVERIFY(predictAndWait(d, data_));
        QCOMPARE(d.result()->members, 1);
    }
};

QTEST_MAIN(TestPredictModelFile)
#include "tst_predict_model_file.moc"
