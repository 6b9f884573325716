// Finite-difference gradient checks (double-precision CPU backend) of the dense and conv
// layers for every activation and parameter tensor, and of both losses.
#include <QtTest>

#include <cmath>

#include "common/GradCheck.h"
#include "compute/CpuBackend.h"
#include "model/Loss.h"
#include "model/Rng.h"
#include "model/layers/ActivationNames.h"
#include "model/layers/ConvLayer.h"
#include "model/layers/DenseLayer.h"

using namespace nnwb;

class GradcheckDenseConv : public QObject {
    Q_OBJECT
private slots:
    void dense_data() {
        QTest::addColumn<QString>("activation");
        for (const auto& a : activationNames())
            QTest::newRow(a.c_str()) << QString::fromStdString(a);
    }
    void dense() {
        QFETCH(QString, activation);
        const Activation act = activationFromName(activation.toStdString());
        const auto msg =
            test::gradCheckLayer([&] { return std::make_unique<DenseLayer>(5, act); }, Shape{3, 4});
        QVERIFY2(msg.empty(), msg.c_str());
    }
    void denseBatchOne() {
        const auto msg = test::gradCheckLayer(
            [] { return std::make_unique<DenseLayer>(7, Activation::Tanh); }, Shape{1, 9}, 1);
        QVERIFY2(msg.empty(), msg.c_str());
    }
    void conv_data() {
        QTest::addColumn<int>("window");
        QTest::addColumn<int>("step");
        QTest::addColumn<QString>("activation");
        QTest::newRow("step==window sigmoid") << 4 << 4 << "sigmoid";
        QTest::newRow("overlapping tanh") << 5 << 2 << "tanh";
        QTest::newRow("gaps swish") << 3 << 4 << "swish";
        QTest::newRow("leaky") << 4 << 1 << "leaky_relu";
        QTest::newRow("softmax") << 4 << 4 << "softmax";
        QTest::newRow("none") << 6 << 3 << "none";
    }
    void conv() {
        QFETCH(int, window);
        QFETCH(int, step);
        QFETCH(QString, activation);
        const Activation act = activationFromName(activation.toStdString());
        const auto msg = test::gradCheckLayer(
            [&] { return std::make_unique<ConvLayer>(window, step, 3, act); }, Shape{5, 4});
        QVERIFY2(msg.empty(), msg.c_str());
    }

    void losses_data() {
        QTest::addColumn<QString>("loss");
        QTest::addColumn<bool>("weighted");
        QTest::newRow("mse") << "mse" << false;
        QTest::newRow("cross_entropy") << "cross_entropy" << false;
        QTest::newRow("mse, class weights") << "mse" << true;
        QTest::newRow("cross_entropy, class weights") << "cross_entropy" << true;
    }
    // d(mean loss)/d(output) from Loss::compute against central differences; with class
    // weights, the gradient scaled per sample by Backend::scaleRows against the differences of
    // the weighted mean loss (sum of w_s * loss_s / batch).
    void losses() {
        QFETCH(QString, loss);
        QFETCH(bool, weighted);
        CpuBackend be(Precision::Double, 1);
        const int batch = 4, outs = 3;
        Loss l(be, lossFromName(loss.toStdString()), outs, batch);
        Rng rng(5);
        std::vector<double> y(batch * outs), t(batch * outs, 0.0);
        for (auto& v : y) v = rng.uniform(-2, 2);
        for (int b = 0; b < batch; ++b) t[b * outs + rng.below(outs)] = 1.0;
        t[outs + 0] = 1.0;  // an outside-bar style target with two classes set
        Buffer yb = be.alloc(y.size()), tb = be.alloc(t.size());
        be.uploadF64(tb, t.data(), t.size());
        std::vector<double> w(batch, 1.0);
        if (weighted) w = {0.5, 2.25, 1.0, 3.5};
        Buffer wb = be.alloc(batch);
        be.uploadF64(wb, w.data(), w.size());
        auto meanLoss = [&](const std::vector<double>& yy) {
            be.uploadF64(yb, yy.data(), yy.size());
            l.compute(yb, tb, batch);
            std::vector<double> per(batch);
            be.downloadF64(l.perSample(), per.data(), batch);
            double s = 0;
            for (int b = 0; b < batch; ++b) s += w[b] * per[b];
            return s / batch;
        };
        meanLoss(y);
        if (weighted) be.scaleRows({batch, outs, wb, l.gradient()});
        std::vector<double> g(y.size());
        be.downloadF64(l.gradient(), g.data(), g.size());
        const double eps = 1e-6;
        for (size_t i = 0; i < y.size(); ++i) {
            auto yp = y, ym = y;
            yp[i] += eps;
            ym[i] -= eps;
            const double num = (meanLoss(yp) - meanLoss(ym)) / (2 * eps);
            QVERIFY2(
                std::fabs(num - g[i]) < 1e-7,
                qPrintable(QString("output %1: analytic %2 numeric %3").arg(i).arg(g[i]).arg(num)));
        }
    }
};

QTEST_APPLESS_MAIN(GradcheckDenseConv)
#include "tst_gradcheck_dense_conv.moc"
