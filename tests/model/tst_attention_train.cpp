// Each attention-family layer learns a small deterministic synthetic task (fixtures in
// tests/fixtures/attention): the training loss falls from about ln 3 below a stated level, and
// the same seed gives the same numbers twice.
// Model headers first: Metrics.h has a member named `signals`, a Qt keyword macro.
#include <memory>

#include "compute/CpuBackend.h"
#include "model/Experiment.h"
#include "model/ExperimentData.h"
#include "model/Trainer.h"

#include <QtTest>

using namespace nnwb;

namespace {
std::vector<double> trainLosses(const std::string& path) {
    const Experiment e = Experiment::load(path);
    const ExperimentData data = loadExperimentData(e);
    if (!data.ok) throw std::runtime_error(data.error);
    CpuBackend be(Precision::Float, 2);
    Network net(Network::layersFromJson(e.model), data.split.train.inputShape);
    Trainer trainer(be, net, e.training, data.split);
    std::vector<double> losses;
    for (int i = 0; i < e.training.epochs; ++i) losses.push_back(trainer.runEpoch().train.loss);
    return losses;
}
}  // namespace

class TestAttentionTrain : public QObject {
    Q_OBJECT
private slots:
    void learns_data() {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<double>("maxFinalLoss");
        QTest::newRow("attention") << "attention-synthetic" << 0.7;
        QTest::newRow("multihead") << "multihead-synthetic" << 0.6;
        QTest::newRow("stack") << "stack-synthetic" << 0.7;
        QTest::newRow("gpt") << "gpt-synthetic" << 0.95;
        QTest::newRow("lightconv") << "lightconv-synthetic" << 0.8;
    }
    void learns() {
        QFETCH(QString, fixture);
        QFETCH(double, maxFinalLoss);
        const std::string path =
            std::string(NNWB_TEST_FIXTURES) + "/attention/" + fixture.toStdString() + ".json";
        const auto losses = trainLosses(path);
        QVERIFY(losses.front() > 0.9);
        QVERIFY2(losses.back() < maxFinalLoss,
                 qPrintable(QString("final loss %1").arg(losses.back())));
        QCOMPARE(trainLosses(path), losses);
    }
};

QTEST_GUILESS_MAIN(TestAttentionTrain)
#include "tst_attention_train.moc"
