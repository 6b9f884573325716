// nnwb-cli train --population N --ensemble and predict with the ensemble bundle, as a user runs
// them (docs/ensembles.md): 2 seeds on the first 700 bars of the bundled EURUSD file kept as
// one bundle whose member 2 holds, bit for bit, the weights seed 6 trained alone keeps and
// predicts exactly as that model does; the members' validation figures are their runs' best
// epochs'; predict's CSV gains agreement and spread and its outputs are the members' mean;
// --min-agreement drops weakly agreed trades, in predict and in train's comparison of the ensemble
// with its best and median member; bad input exits 2 naming the flag, key or file
// and leaves the files as they were.
#include <QtTest>

#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "app/runs/RunStore.h"
#include "common/BarExperiments.h"
#include "common/CliFixture.h"
#include "common/TestUtil.h"
#include "model/Predictor.h"
#include "model/data/BarImporter.h"
#include "model/data/DataConfig.h"
#include "model/ensemble/EnsembleBundle.h"

using nlohmann::json;

class TstCliEnsemble : public QObject, nnwb::test::CliFixture {
    Q_OBJECT
    QString exp_, data_, ensemble_;
    json experiment_;

    static std::string fileText(const QString& p) {
        std::ifstream f(p.toStdString(), std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(f), {});
    }
    // The member runs of the one (ensemble) run listed, in id order.
    static std::vector<nnwb::StoredRun> runs(const QString& db) {
        nnwb::RunStore store(db.toStdString());
        const auto listed = store.list();
        return listed.size() == 1 ? store.members(listed.front().id) : listed;
    }
    nnwb::PredictionResult predictWith(const nnwb::ModelBundle& b) {
        nnwb::LoadResult loaded = nnwb::loadBarFile(data_.toStdString());
        nnwb::Predictor p(b, "cpu");
        return p.predict(loaded.bars);
    }

private Q_SLOTS:
    void initTestCase() {
        dir_ = QString::fromStdString(nnwb::test::tempDir());
        data_ = writeCut("EURUSD_H1.csv", 700);
        experiment_ =
            nnwb::test::barExperiment("ens", {{"file", data_.toStdString()}, {"window", 6}},
                                      nnwb::test::denseLayers(16, "sigmoid", 0.1),
                                      {{"epochs", 3}, {"batchSize", 16}, {"seed", 5}});
        exp_ = write("e.json", experiment_.dump(2));
        ensemble_ = path("ens.safetensors");
        const auto r =
            run({"train", "--experiment", exp_, "--population", "2", "--vary", "seed=5..6",
                 "--ensemble", "--save-model", ensemble_, "--runs-db", path("ens.db")});
        QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
        QVERIFY2(r.out.contains("ensemble of 2: validation loss"), qPrintable(r.out));
        QVERIFY2(r.out.contains("median member"), qPrintable(r.out));
    }

    void aMemberPredictsExactlyAsItsSeedAlone() {
        json alone = experiment_;
        alone["training"]["seed"] = 6;
        const QString single = path("seed6.safetensors");
        const auto r = run({"train", "--experiment", write("alone.json", alone.dump()),
                            "--save-model", single, "--runs-db", path("alone.db")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const nnwb::EnsembleBundle e = nnwb::EnsembleBundle::load(ensemble_.toStdString());
        const nnwb::ModelBundle s = nnwb::ModelBundle::load(single.toStdString());
        QCOMPARE(e.size(), size_t(2));
        QCOMPARE(e.members[1].seed, uint64_t(6));
        QCOMPARE(e.members[1].epoch, s.epoch);
        QCOMPARE(e.weights[1].size(), s.tensors.size());
        for (const auto& [name, t] : s.tensors)
            QVERIFY2(e.weights[1].at(name).values == t.values, name.c_str());
        const nnwb::PredictionResult a = predictWith(e.member(1)), b = predictWith(s);
        QCOMPARE(a.rows.size(), b.rows.size());
        for (size_t k = 0; k < a.rows.size(); ++k)
            QVERIFY2(a.rows[k].outputs == b.rows[k].outputs, qPrintable(QString::number(k)));
        QCOMPARE(a.metrics.loss, b.metrics.loss);
        // Member 1 differs (its own seed): the test would see a wrong member.
        QVERIFY(predictWith(e.member(0)).rows[0].outputs != b.rows[0].outputs);
    }

    void membersCarryTheirRunsBestValidationFigures() {
        const nnwb::EnsembleBundle e = nnwb::EnsembleBundle::load(ensemble_.toStdString());
        const auto stored = runs(path("ens.db"));
        QCOMPARE(stored.size(), size_t(2));
        QVERIFY(!stored[0].comparison.empty());
        QCOMPARE(stored[0].comparison, stored[1].comparison);  // one ensemble
        for (size_t m = 0; m < 2; ++m) {
            QVERIFY(e.members[m].hasValidation);
            const auto& best = stored[m].epochs[size_t(e.members[m].epoch - 1)].report.validation;
            QVERIFY2(
                std::fabs(e.members[m].validationLoss - best.loss) <= 1e-6 * best.loss,
                qPrintable(QString("%1 vs %2").arg(e.members[m].validationLoss).arg(best.loss)));
            QCOMPARE(e.members[m].validationMissed, best.missedPct);
        }
    }

    void predictCsvHasAgreementAndTheMembersMean() {
        const QString csv = path("p.csv");
        const auto r = run({"predict", "--model", ensemble_, "--data", data_, "--csv", csv});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("an ensemble of 2 members"), qPrintable(r.out));
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QStringList lines = QString(f.readAll()).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.front(), QString("time,close,none,buy,sell,signal,label,agreement,spread"));
        const nnwb::EnsembleBundle e = nnwb::EnsembleBundle::load(ensemble_.toStdString());
        const nnwb::PredictionResult m0 = predictWith(e.member(0)), m1 = predictWith(e.member(1));
        QCOMPARE(size_t(lines.size() - 1), m0.rows.size());
        bool split = false;
        for (size_t k = 0; k < m0.rows.size(); ++k) {
            const QStringList c = lines[int(k) + 1].split(',');
            for (int o = 0; o < 3; ++o) {
                const double mean = (double(m0.rows[k].outputs[size_t(o)]) +
                                     double(m1.rows[k].outputs[size_t(o)])) /
                                    2;
                QVERIFY2(std::fabs(c[2 + o].toDouble() - mean) < 1e-6,
                         qPrintable(lines[int(k) + 1]));
            }
            // The share of the two members whose own signal is the combined one (column 5).
            const char* names[] = {"none", "buy", "sell"};
            int votes = 0;
            for (const auto* m : {&m0, &m1}) votes += c[5] == names[m->rows[k].signal] ? 1 : 0;
            QCOMPARE(c[7], QString(votes == 2 ? "1" : votes == 1 ? "0.5" : "0"));
            split = split || votes == 1;
        }
        QVERIFY(split);  // the two seeds disagree somewhere
    }

    void minAgreementDropsWeakTrades() {
        auto trades = [&](const QString& min) {
            const auto r = run({"predict", "--model", ensemble_, "--data", data_, "--json",
                                "--trading", "--min-agreement", min});
            if (r.code != 0) return -1;
            return json::parse(r.out.toStdString())["trading"]["strategy"]["trades"].get<int>();
        };
        const int all = trades("0"), agreed = trades("1");
        QVERIFY2(all > 0 && agreed >= 0, qPrintable(QString("%1 %2").arg(all).arg(agreed)));
        QVERIFY2(agreed < all, qPrintable(QString("%1 %2").arg(all).arg(agreed)));
        const auto bad = run({"predict", "--model", ensemble_, "--data", data_, "--trading",
                              "--min-agreement", "1.5"});
        QCOMPARE(bad.code, 2);
        QVERIFY2(bad.err.contains("--min-agreement"), qPrintable(bad.err));
    }

    void comparisonTradesTheEnsembleUnderMinAgreement() {
        auto ensembleJson = [&](double minAgreement) {
            json e = experiment_;
            e["trading"] = {{"minAgreement", minAgreement}};
            const QString file = write("min" + QString::number(minAgreement) + ".json", e.dump());
            const auto r = run({"train", "--experiment", file, "--population", "2", "--vary",
                                "seed=5..6", "--ensemble", "--save-model", path("min.safetensors"),
                                "--no-record", "--json"});
            if (r.code != 0) return json{{"error", (r.err + r.out).toStdString()}};
            return json::parse(r.out.trimmed().split('\n').back().toStdString())["ensemble"];
        };
        const json all = ensembleJson(0), agreed = ensembleJson(1);
        QVERIFY2(all.contains("validation"), all.dump().c_str());
        QCOMPARE(agreed["minAgreement"].get<double>(), 1.0);
        const double allTrades = all["validation"]["trading"]["trades"].get<double>();
        const double agreedTrades = agreed["validation"]["trading"]["trades"].get<double>();
        QVERIFY2(allTrades > 0 && agreedTrades < allTrades, agreed.dump().c_str());
        // A member's signals always agree: its trades do not change.
        QCOMPARE(agreed["bestMember"]["trading"].dump(), all["bestMember"]["trading"].dump());
        QCOMPARE(agreed["medianMember"]["member"], all["medianMember"]["member"]);
        QCOMPARE(all["validation"]["loss"], agreed["validation"]["loss"]);
        // With 2 members the median member is the other one, not the best again (before, index
        // (n-1)/2 = 0 made it the best): the worse of the two middle ones.
        QVERIFY2(all["medianMember"]["member"] != all["bestMember"]["member"], all.dump().c_str());
        QVERIFY(all["medianMember"]["loss"].get<double>() >=
                all["bestMember"]["loss"].get<double>());
    }

    // training.ensemble 2 in the experiment (the window's "Ensemble of N seeds") trains the
    // ensemble of seeds 5..6 as --population 2 --vary seed=5..6 --ensemble does: the same
    // bundle bytes; without --save-model or with --population it is refused naming the key.
    void theEnsembleSettingTrainsTheSameEnsemble() {
        json e = experiment_;
        e["training"]["ensemble"] = 2;
        const QString file = write("e2.json", e.dump(2)), kept = path("setting.safetensors");
        auto r = run({"train", "--experiment", file, "--save-model", kept, "--no-record"});
        QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
        QVERIFY2(r.out.contains("ensemble of 2: validation loss"), qPrintable(r.out));
        const nnwb::EnsembleBundle a = nnwb::EnsembleBundle::load(kept.toStdString());
        const nnwb::EnsembleBundle b = nnwb::EnsembleBundle::load(ensemble_.toStdString());
        const nnwb::TensorMap ta = a.tensors(), tb = b.tensors();
        QCOMPARE(ta.size(), tb.size());
        for (const auto& [name, t] : ta) {
            QVERIFY2(tb.count(name), name.c_str());
            QVERIFY2(t.values == tb.at(name).values, name.c_str());  // bit for bit
        }
        QCOMPARE(a.members[1].seed, uint64_t(6));
        for (const QStringList& extra : {QStringList{}, QStringList{"--population", "2"}}) {
            r = run(QStringList{"train", "--experiment", file, "--no-record"} + extra);
            QCOMPARE(r.code, 2);
            QVERIFY2(r.err.contains("training.ensemble 2: "), qPrintable(r.err));
        }
    }

    void badInputIsRefusedAndChangesNothing() {
        const QString kept = path("kept.safetensors");
        QFile::copy(ensemble_, kept);
        const std::string before = fileText(kept);
        const std::vector<std::pair<QStringList, QString>> cases = {
            {{"--population", "1", "--ensemble", "--save-model", kept},
             "--ensemble: an ensemble needs at least 2 members"},
            {{"--ensemble", "--save-model", kept}, "--ensemble: only with --population N"},
            {{"--population", "2", "--ensemble"}, "--ensemble: needs --save-model"},
        };
        for (const auto& [args, what] : cases) {
            const auto r = run(QStringList{"train", "--experiment", exp_, "--no-record"} + args);
            QVERIFY2(r.code == 2, qPrintable(args.join(' ') + ": " + r.err));
            QVERIFY2(r.err.contains(what), qPrintable(args.join(' ') + ": " + r.err));
        }
        QCOMPARE(fileText(kept), before);
        // A bundle whose member count disagrees with its weights: predict names the key.
        nnwb::EnsembleBundle e = nnwb::EnsembleBundle::load(ensemble_.toStdString());
        e.members.push_back(e.members.back());
        std::map<std::string, std::string> meta = e.metadata();
        nnwb::saveSafetensors(path("three.safetensors").toStdString(), e.tensors(), meta);
        const auto r = run({"predict", "--model", path("three.safetensors"), "--data", data_});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("three.safetensors: __metadata__.ensemble.members: 3, but the "
                                "file holds the weights of 2 members"),
                 qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TstCliEnsemble)
#include "tst_cli_ensemble.moc"
