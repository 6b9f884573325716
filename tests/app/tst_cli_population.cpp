// nnwb-cli train --population as a user runs it (docs/population.md): 3 models of one
// experiment on the first 700 bars of the bundled EURUSD file land as 3 runs in the store,
// each with its epochs, best and last bundles and trading figures, and model 2's run equals
// the same experiment trained alone (every epoch's figures); early stopping per model (one
// stops, the other trains on); bad --vary items and flags that do not go with a population
// are refused with what and where.
#include <QtTest>

#include <fstream>

#include <nlohmann/json.hpp>

#include "app/runs/RunStore.h"
#include "common/BarExperiments.h"
#include "common/CliFixture.h"
#include "common/TestUtil.h"
#include "model/data/DataConfig.h"

using nlohmann::json;

class TstCliPopulation : public QObject, nnwb::test::CliFixture {
    Q_OBJECT
    QString exp_;
    json experiment_;

    QString db(const QString& name) const { return dir_ + "/" + name + ".db"; }
    // The store's runs, oldest first, with their epochs and bundles.
    static std::vector<nnwb::StoredRun> runs(const QString& path) {
        nnwb::RunStore store(path.toStdString());
        std::vector<nnwb::StoredRun> out;
        for (const auto& r : store.list()) out.insert(out.begin(), *store.get(r.id));
        return out;
    }

private Q_SLOTS:
    void initTestCase() {
        dir_ = QString::fromStdString(nnwb::test::tempDir());
        const QString data = writeCut("EURUSD_H1.csv", 700);
        experiment_ =
            nnwb::test::barExperiment("pop", {{"file", data.toStdString()}, {"window", 6}},
                                      nnwb::test::denseLayers(16, "sigmoid", 0.1),
                                      {{"epochs", 3}, {"batchSize", 16}, {"seed", 5}});
        exp_ = write("e.json", experiment_.dump(2));
    }

    void populationLandsAsRunsEqualToRunsAlone() {
        auto r = run({"train", "--experiment", exp_, "--population", "3", "--vary",
                      "optimizer.learningRate=0.001,0.003,0.01", "--runs-db", db("pop")});
        QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
        QVERIFY2(r.out.contains("a population of 3 models"), qPrintable(r.out));
        QVERIFY2(r.out.contains("epoch 3/3  3 of 3 models"), qPrintable(r.out));
        const auto stored = runs(db("pop"));
        QCOMPARE(stored.size(), size_t(3));
        for (size_t m = 0; m < 3; ++m) {
            const nnwb::StoredRun& s = stored[m];
            QCOMPARE(s.status, std::string(nnwb::runstatus::kCompleted));
            QCOMPARE(s.seed, uint64_t(5 + m));
            QVERIFY2(s.name.find("seed=" + std::to_string(5 + m)) != std::string::npos,
                     s.name.c_str());
            QCOMPARE(s.epochs.size(), size_t(3));
            QCOMPARE(s.bundles.size(), size_t(2));
            for (const auto& b : s.bundles) QVERIFY(QFile::exists(QString::fromStdString(b.path)));
            QVERIFY2(s.trading.contains("strategy"), s.trading.dump().c_str());
        }
        // Model 2 alone: seed 6, learning rate 0.003.
        json alone = experiment_;
        alone["training"]["seed"] = 6;
        alone["training"]["optimizer"] = {{"learningRate", 0.003}};
        r = run(
            {"train", "--experiment", write("alone.json", alone.dump()), "--runs-db", db("alone")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const auto single = runs(db("alone"));
        QCOMPARE(single.size(), size_t(1));
        for (size_t e = 0; e < 3; ++e) {
            QCOMPARE(stored[1].epochs[e].report.train.loss, single[0].epochs[e].report.train.loss);
            QCOMPARE(stored[1].epochs[e].report.validation.loss,
                     single[0].epochs[e].report.validation.loss);
        }
        QCOMPARE(stored[1].trading["strategy"].dump(), single[0].trading["strategy"].dump());
        QVERIFY(stored[0].epochs[2].report.train.loss != stored[1].epochs[2].report.train.loss);
    }

    void earlyStoppingIsPerModel() {
        // Model 1 stops after epoch 2 (no epoch beats epoch 1 by 1.0); model 2 trains on.
        auto r = run({"train", "--experiment", exp_, "--population", "2", "--vary",
                      "earlyStopping.enabled=true,false", "--vary", "earlyStopping.patience=1",
                      "--vary", "earlyStopping.minDelta=1.0", "--runs-db", db("early"), "--json"});
        QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
        const auto stored = runs(db("early"));
        QCOMPARE(stored.size(), size_t(2));
        QCOMPARE(stored[0].status, std::string(nnwb::runstatus::kStoppedEarly));
        QCOMPARE(stored[0].epochs.size(), size_t(2));
        QCOMPARE(stored[1].status, std::string(nnwb::runstatus::kCompleted));
        QCOMPARE(stored[1].epochs.size(), size_t(3));
        int summaries = 0;
        for (const QString& line : r.out.split('\n', Qt::SkipEmptyParts)) {
            const json j = json::parse(line.toStdString());
            if (j.contains("status")) {
                ++summaries;
                QCOMPARE(j["status"].get<std::string>(),
                         std::string(j["model"] == 1 ? "stopped early" : "completed"));
            }
        }
        QCOMPARE(summaries, 2);
    }

    void badInputIsRefused() {
        const std::vector<std::pair<QStringList, QString>> cases = {
            {{"--population", "3", "--vary", "batchSize=8,16,32"}, "may differ only in"},
            {{"--population", "3", "--vary", "seed=1..4"}, "1..4 gives 4 values for 3 models"},
            {{"--population", "2", "--vary", "optimizer.learningRate=0.1,-1"}, "model 2"},
            {{"--vary", "seed=1..2"}, "--vary: only with --population N"},
            {{"--population", "2", "--save-model", dir_ + "/x.safetensors"},
             "--save-model: not with --population"},
            {{"--population", "0"}, "--population"},
        };
        for (const auto& [args, what] : cases) {
            const auto r = run(QStringList{"train", "--experiment", exp_, "--no-record"} + args);
            QVERIFY2(r.code == 2, qPrintable(args.join(' ') + ": " + r.err));
            QVERIFY2(r.err.contains(what), qPrintable(args.join(' ') + ": " + r.err));
        }
    }
};

QTEST_GUILESS_MAIN(TstCliPopulation)
#include "tst_cli_population.moc"
