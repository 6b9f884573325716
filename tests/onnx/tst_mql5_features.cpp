// The generated Expert Advisor's feature code, compiled and run: the MQL5 text between the
// "nnwb:features" markers of nnwb_expert.mq5 is compiled as C++ with the system's c++ and a
// small shim of the MQL5 built-ins it uses (tests/onnx/mql5/MqlShim.h; array parameters and
// local dynamic arrays are the only text rewritten), run on real bars, and its features, model
// input window, outlier check and signals are compared with nnwb's own pipeline: every feature
// of every bar after the warm-up within 1e-9 (relative), for all features with the MT5 and the
// textbook definitions, odd periods, a subset, and a feature table entry for every feature.
#include <QtTest>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>

#include "Mql5Harness.h"
#include "app/export/Mql5Expert.h"
#include "app/export/Mql5FeatureTable.h"
#include "common/TestUtil.h"
#include "model/data/BarImporter.h"
#include "model/data/DataConfig.h"
#include "model/data/Features.h"
#include "model/data/Normalization.h"
#include "nnwb/TestPaths.h"

using namespace nnwb;

namespace {

// The feature section of an expert's source, rewritten to C++ (array syntax only).
std::string featureCodeAsCpp(const std::string& mq5) {
    std::string code =
        test::mql5Section(mq5, onnxexport::kMql5FeaturesBegin, onnxexport::kMql5FeaturesEnd);
    // `const MqlRates &rates[]` -> `const nnwb_mql::Array<MqlRates>& rates`
    code = std::regex_replace(code, std::regex(R"((\w+)\s*&\s*(\w+)\s*\[\])"),
                              "nnwb_mql::Array<$1>& $2");
    // `double tp[];` -> `nnwb_mql::Array<double> tp;`
    code = std::regex_replace(code, std::regex(R"(\b(double|int|long|float)\s+(\w+)\s*\[\]\s*;)"),
                              "nnwb_mql::Array<$1> $2;");
    return code;
}

// main(): reads bars "time open high low close tickvolume" from argv[1], writes to argv[2]:
// n warmup features, the feature rows from the warm-up on, the model input of the last window,
// the outlier index of the last row, and the signals of fixed output vectors.
const char* kHarnessMain = R"CPP(
#include <cstdio>
    int main(int argc, char** argv) {
        if (argc < 3) return 2;
        FILE* in = std::fopen(argv[1], "r");
        if (!in) return 3;
        nnwb_mql::Array<MqlRates> rates;
        MqlRates r;
        while (std::fscanf(in, "%lld %lf %lf %lf %lf %lld", &r.time, &r.open, &r.high, &r.low,
                           &r.close, &r.tick_volume) == 6)
            rates.v.push_back(r);
        std::fclose(in);
        const int n = ArraySize(rates);
        nnwb_mql::Array<double> x;
        NnwbFeatures(rates, n, x);
        FILE* out = std::fopen(argv[2], "w");
        std::fprintf(out, "%d %d %d\n", n, NNWB_WARMUP, NNWB_FEATURES);
        for (int i = NNWB_WARMUP; i < n; ++i)
            for (int k = 0; k < NNWB_FEATURES; ++k)
                std::fprintf(out, "%.17g\n", x[i * NNWB_FEATURES + k]);
        matrixf xin;
        NnwbInput(x, n, xin);
        for (int rr = 0; rr < NNWB_WINDOW; ++rr)
            for (int c = 0; c < NNWB_FEATURES; ++c) std::fprintf(out, "%.9g\n", xin[rr][c]);
        std::fprintf(out, "%d\n", NnwbOutlier(x, n - 1));
        const float ys[6][3] = {{1, 1, 0},  {0, 2, 2}, {0, 1, 3},
                                {5, -1, 4}, {0, 0, 0}, {0.1f, 0.7f, 0.2f}};
        for (const auto& v : ys) {
            vectorf y(3);
            for (int k = 0; k < 3; ++k) y[k] = v[k];
            std::fprintf(out, "%d\n", NnwbSignal(y));
        }
        std::fclose(out);
        return 0;
    }
)CPP";

struct HarnessRun {
    std::string error;
    int n = 0, warmup = 0, features = 0;
    std::vector<double> values;  // rows warmup..n-1
    std::vector<double> input;   // window x features
    int outlier = -2;
    std::vector<int> signalOf;
};

HarnessRun runHarness(const std::string& mq5, const BarSeries& bars, int window,
                      const std::string& dir, const std::string& tag) {
    HarnessRun h;
    const std::string code = featureCodeAsCpp(mq5);
    if (code.empty()) return h.error = "no feature markers in the generated source", h;
    const std::string cpp = dir + "/" + tag + ".cpp", exe = dir + "/" + tag;
    {
        std::ofstream f(cpp);
        f << "#include \"" << test::mql5ShimDir() << "MqlShim.h\"\n" << code << kHarnessMain;
    }
    h.error = test::compileHarness(cpp, exe);
    if (!h.error.empty()) return h;
    const std::string barsFile = dir + "/" + tag + ".bars", outFile = dir + "/" + tag + ".out";
    {
        std::ofstream f(barsFile);
        f.precision(17);
        for (size_t i = 0; i < bars.size(); ++i)
            f << bars.time[i] << ' ' << bars.open[i] << ' ' << bars.high[i] << ' ' << bars.low[i]
              << ' ' << bars.close[i] << ' ' << std::llround(bars.volume[i]) << '\n';
    }
    QProcess run;
    run.start(QString::fromStdString(exe),
              {QString::fromStdString(barsFile), QString::fromStdString(outFile)});
    if (!run.waitForFinished(120000) || run.exitCode() != 0)
        return h.error = "the harness failed: " + std::to_string(run.exitCode()), h;
    std::ifstream f(outFile);
    f >> h.n >> h.warmup >> h.features;
    h.values.resize(size_t(h.n - h.warmup) * size_t(h.features));
    for (double& v : h.values) f >> v;
    h.input.resize(size_t(window) * size_t(h.features));
    for (double& v : h.input) f >> v;
    f >> h.outlier;
    h.signalOf.resize(6);
    for (int& s : h.signalOf) f >> s;
    if (!f) h.error = "the harness output is short";
    return h;
}

ModelBundle bundleFor(const FeatureSpec& spec, int window, const FeatureMatrix& m) {
    ModelBundle b;
    b.experiment = "harness";
    b.data.features = spec;
    b.data.window = window;
    b.timeframe = 3600;
    b.features = m.names;
    // Statistics of the whole file; the last feature's mean is shifted so that the outlier
    // check has something to find.
    b.stats = fitZScore(m, m.firstValid, m.bars - 1);
    b.stats.mean.back() += 1000.0 * std::max(b.stats.stddev.back(), 1e-9);
    return b;
}

const BarSeries& realBars(const std::string& path) {
    static std::map<std::string, BarSeries> cache;
    auto it = cache.find(path);
    if (it == cache.end()) {
        LoadResult r = loadBarFile(path);
        it = cache.emplace(path, r.ok ? std::move(r.bars) : BarSeries{}).first;
    }
    return it->second;
}

}  // namespace

class TestMql5Features : public QObject {
    Q_OBJECT
private slots:
    void everyFeatureHasMql5Code() {
        FeatureSpec all;
        for (int i = 0; i < kFeatureKinds; ++i) {
            const auto f = static_cast<Feature>(i);
            QVERIFY2(onnxexport::hasMql5FeatureCode(f), featureKey(f));
            QVERIFY(!onnxexport::mql5FeatureCode(f, all).value.empty());
        }
    }

    void matchesNnwbFeatures_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("variant");  // 0 all mt5, 1 all textbook odd periods, 2 subset
        QTest::addColumn<int>("window");
        const QString bundled = QString::fromStdString(defaultDataFile());
        QTest::newRow("EURUSD bundled, all, mt5") << bundled << 0 << 20;
        QTest::newRow("EURUSD bundled, all, textbook, odd periods") << bundled << 1 << 7;
        QTest::newRow("EURUSD bundled, subset, mt5, slow < fast") << bundled << 2 << 5;
        const QString gold = QStringLiteral(NNWB_SHARED_DATA_DIR "/XAUUSD_H1.csv");
        if (QFileInfo::exists(gold)) {
            QTest::newRow("XAUUSD shared, all, mt5") << gold << 0 << 20;
            QTest::newRow("XAUUSD shared, all, textbook, odd periods") << gold << 1 << 9;
        }
    }

    void matchesNnwbFeatures() {
        QFETCH(QString, file);
        QFETCH(int, variant);
        QFETCH(int, window);
        BarSeries bars = realBars(file.toStdString());
        QVERIFY2(bars.size() > 1000, qPrintable(file));
        if (bars.size() > 6000) {  // the newest 6000 bars: both sides start at the same bar
            const size_t cut = bars.size() - 6000;
            auto tail = [cut](auto& v) { v.erase(v.begin(), v.begin() + long(cut)); };
            tail(bars.time), tail(bars.open), tail(bars.high), tail(bars.low), tail(bars.close),
                tail(bars.volume);
        }
        FeatureSpec spec;
        if (variant == 1) {
            spec.definitions = IndicatorDefinitions::Textbook;
            spec.rsiPeriod = 5, spec.cciPeriod = 7, spec.atrPeriod = 9;
            spec.macdFast = 5, spec.macdSlow = 13, spec.macdSignal = 4;
        } else if (variant == 2) {
            spec.enabled.fill(false);
            for (Feature f : {Feature::LowOpen, Feature::Month, Feature::Rsi, Feature::Atr,
                              Feature::MacdSignal})
                spec.setEnabled(f, true);
            spec.atrPeriod = 3, spec.macdFast = 21, spec.macdSlow = 8, spec.macdSignal = 6;
        }
        const FeatureMatrix m = computeFeatures(bars, spec);
        const ModelBundle b = bundleFor(spec, window, m);
        const std::string mq5 = onnxexport::mql5ExpertSource(b);
        const std::string dir = test::tempDir();
        const HarnessRun h =
            runHarness(mq5, bars, window, dir, "variant" + std::to_string(variant));
        QVERIFY2(h.error.empty(), h.error.c_str());
        QCOMPARE(h.n, int(bars.size()));
        QCOMPARE(size_t(h.warmup), spec.warmup());
        QCOMPARE(h.features, m.features);

        double worst = 0.0;
        std::string where;
        for (size_t i = size_t(h.warmup); i < bars.size(); ++i)
            for (int k = 0; k < m.features; ++k) {
                const double want = m.at(i, k);
                const double got =
                    h.values[(i - size_t(h.warmup)) * size_t(m.features) + size_t(k)];
                const double err = std::fabs(got - want) / std::max(1.0, std::fabs(want));
                if (!(err <= worst)) {
                    worst = err;
                    where = m.names[size_t(k)] + " at bar " + std::to_string(i) + ": mq5 " +
                            std::to_string(got) + ", nnwb " + std::to_string(want);
                }
            }
        qInfo("%s: %zu bars, %d features, max relative difference %.3g (%s)", qPrintable(file),
              bars.size(), m.features, worst, where.c_str());
        QVERIFY2(worst <= 1e-9, where.c_str());

        // The model input: the last window rows as float, as fillSamples cuts them.
        for (int r = 0; r < window; ++r)
            for (int c = 0; c < m.features; ++c) {
                const float want = float(m.at(bars.size() - size_t(window) + size_t(r), c));
                QCOMPARE(float(h.input[size_t(r * m.features + c)]), want);
            }
        // The first feature of the newest bar beyond 20 training deviations (bundleFor moved
        // the last feature's mean 1000 deviations away, so there is one).
        int outlier = -1;
        for (int k = 0; k < m.features && outlier < 0; ++k) {
            const size_t uk = size_t(k);
            if (b.stats.stddev[uk] > 0.0 &&
                std::fabs(m.at(bars.size() - 1, k) - b.stats.mean[uk]) > 20.0 * b.stats.stddev[uk])
                outlier = k;
        }
        QVERIFY(outlier >= 0);
        QCOMPARE(h.outlier, outlier);
        // Largest output, the first of equal ones (Predictor::run).
        QCOMPARE(h.signalOf, (std::vector<int>{0, 1, 2, 0, 0, 1}));
    }
};

QTEST_GUILESS_MAIN(TestMql5Features)
#include "tst_mql5_features.moc"
