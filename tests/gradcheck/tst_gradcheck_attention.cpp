// Central finite-difference gradient checks of every parameter tensor and the input of the
// attention family (attention, multihead_attention, attention_stack, gpt, lightconv) on the
// double-precision CPU backend, in both norm modes, with and without the causal mask.
#include <QtTest>

#include "common/GradCheck.h"
#include "model/layers/GptLayer.h"

using namespace nnwb;
using namespace nnwb::test;

namespace {

std::unique_ptr<Backend> doubleBackend() {
    return std::make_unique<CpuBackend>(Precision::Double, 1);
}

void check(const nlohmann::json& j, const Shape& in, int batch = 2) {
    auto run = LayerRun::fromJson(doubleBackend(), j, in, batch, 5);
    size_t checked = 0;
    const std::string err = gradCheck(*run, GradCheckSettings{}, &checked);
    QVERIFY2(err.empty(), (j.dump() + ": " + err).c_str());
    QVERIFY(checked > 0);
}

}  // namespace

class TestGradcheckAttention : public QObject {
    Q_OBJECT
private slots:
    void attention_data() {
        QTest::addColumn<QString>("norm");
        QTest::addColumn<bool>("causal");
        QTest::addColumn<QString>("ffOut");
        QTest::newRow("element") << "element" << false << "none";
        QTest::newRow("element causal") << "element" << true << "sigmoid";
        QTest::newRow("sequence") << "sequence" << false << "tanh";
        QTest::newRow("sequence causal") << "sequence" << true << "none";
    }
    void attention() {
        QFETCH(QString, norm);
        QFETCH(bool, causal);
        QFETCH(QString, ffOut);
        check({{"type", "attention"},
               {"key_size", 3},
               {"causal", causal},
               {"norm", norm.toStdString()},
               {"ff_activation", ffOut.toStdString()}},
              Shape{5, 6});
    }

    void multihead_data() { attention_data(); }
    void multihead() {
        QFETCH(QString, norm);
        QFETCH(bool, causal);
        QFETCH(QString, ffOut);
        check({{"type", "multihead_attention"},
               {"key_size", 2},
               {"heads", 3},
               {"causal", causal},
               {"norm", norm.toStdString()},
               {"activation", "tanh"},
               {"ff_activation", ffOut.toStdString()}},
              Shape{5, 6});
    }

    void stack_data() { attention_data(); }
    void stack() {
        QFETCH(QString, norm);
        QFETCH(bool, causal);
        QFETCH(QString, ffOut);
        check({{"type", "attention_stack"},
               {"key_size", 3},
               {"heads", 2},
               {"layers", 2},
               {"causal", causal},
               {"norm", norm.toStdString()},
               {"ff_activation", ffOut.toStdString()}},
              Shape{4, 6});
    }

    void stackSingleElement() {
        check({{"type", "attention_stack"}, {"key_size", 2}, {"heads", 2}, {"layers", 2}},
              Shape{1, 5}, 3);
    }

    // GPT: gradients flow only through the new element with the cached keys/values fixed.
    // Stream mode makes that function explicit: prime the ring, then repeat the same step.
    void gptStream_data() {
        QTest::addColumn<int>("primeSteps");
        QTest::newRow("partly filled ring") << 2;
        QTest::newRow("full ring") << 3;
        QTest::newRow("wrapped ring") << 6;
    }
    void gptStream() {
        QFETCH(int, primeSteps);
        const Shape in{4, 6};
        auto run = LayerRun::fromJson(doubleBackend(),
                                      {{"type", "gpt"},
                                       {"key_size", 3},
                                       {"heads", 2},
                                       {"layers", 2},
                                       {"ff_activation", "sigmoid"},
                                       {"mode", "stream"}},
                                      in, 2, 9);
        auto& gpt = dynamic_cast<GptLayer&>(*run->layer);
        for (int k = 0; k < primeSteps; ++k) {
            run->setInput(randomDoubles(run->inCount(), 500 + k));
            run->forward(false);
        }
        const long long step = gpt.streamStep();
        run->beforeForward = [step](Layer& l) { dynamic_cast<GptLayer&>(l).setStreamStep(step); };
        size_t checked = 0;
        const std::string err = gradCheck(*run, GradCheckSettings{}, &checked);
        QVERIFY2(err.empty(), err.c_str());
    }

    void lightconv_data() {
        QTest::addColumn<int>("heads");
        QTest::addColumn<int>("k");
        QTest::addColumn<QString>("padding");
        QTest::addColumn<bool>("softmax");
        QTest::newRow("k3 causal softmax") << 2 << 3 << "causal" << true;
        QTest::newRow("k3 centred raw") << 3 << 3 << "centred" << false;
        QTest::newRow("k5 centred softmax") << 1 << 5 << "centred" << true;
        QTest::newRow("k7 causal raw") << 6 << 7 << "causal" << false;
    }
    void lightconv() {
        QFETCH(int, heads);
        QFETCH(int, k);
        QFETCH(QString, padding);
        QFETCH(bool, softmax);
        check({{"type", "lightconv"},
               {"heads", heads},
               {"kernel_size", k},
               {"padding_l", padding.toStdString()},
               {"softmax_taps", softmax}},
              Shape{7, 6}, 3);
    }
};

QTEST_GUILESS_MAIN(TestGradcheckAttention)
#include "tst_gradcheck_attention.moc"
