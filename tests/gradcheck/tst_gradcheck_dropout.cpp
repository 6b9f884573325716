// Central finite-difference gradient checks with dropout active and its mask held fixed (the
// layer's dropout stream stays at one (seed, step) for every forward of the check): the
// dropout layer and the attention layers with score_dropout and ff_dropout, on the
// double-precision CPU backend. Each case first shows that the mask is active (training
// output differs from evaluation) so that the check cannot pass vacuously.
#include <QtTest>

#include "common/GradCheck.h"
#include "common/LayerRun.h"

using namespace nnwb;
using namespace nnwb::test;

namespace {

void check(const nlohmann::json& j, const Shape& in, int batch = 2) {
    auto run =
        LayerRun::fromJson(std::make_unique<CpuBackend>(Precision::Double, 1), j, in, batch, 5);
    run->layer->setDropoutStream(31, 4);
    run->setInput(randomDoubles(run->inCount(), 3));
    QVERIFY2(run->forward(true) != run->forward(false), "dropout was not active");
    size_t checked = 0;
    const std::string err = gradCheck(*run, GradCheckSettings{}, &checked);
    QVERIFY2(err.empty(), (j.dump() + ": " + err).c_str());
    QVERIFY(checked > 0);
}

}  // namespace

class TestGradcheckDropout : public QObject {
    Q_OBJECT
private slots:
    void dropoutLayer() {
        for (double rate : {0.2, 0.5, 0.9}) check({{"type", "dropout"}, {"rate", rate}}, {5, 7});
    }

    void attention_data() {
        QTest::addColumn<QString>("type");
        QTest::addColumn<QString>("norm");
        QTest::addColumn<bool>("causal");
        QTest::addColumn<double>("score");
        QTest::addColumn<double>("ff");
        for (const char* type : {"attention", "multihead_attention", "attention_stack"}) {
            QTest::addRow("%s both", type) << type << "element" << false << 0.3 << 0.25;
            QTest::addRow("%s score causal", type) << type << "element" << true << 0.4 << 0.0;
            QTest::addRow("%s ff sequence", type) << type << "sequence" << false << 0.0 << 0.5;
        }
    }
    void attention() {
        QFETCH(QString, type);
        QFETCH(QString, norm);
        QFETCH(bool, causal);
        QFETCH(double, score);
        QFETCH(double, ff);
        nlohmann::json j{{"type", type.toStdString()}, {"key_size", 3},
                         {"causal", causal},           {"norm", norm.toStdString()},
                         {"score_dropout", score},     {"ff_dropout", ff}};
        if (type != "attention") j["heads"] = 2;
        if (type == "attention_stack") j["layers"] = 2;
        check(j, Shape{5, 6});
    }
};

QTEST_GUILESS_MAIN(TestGradcheckDropout)
#include "tst_gradcheck_dropout.moc"
