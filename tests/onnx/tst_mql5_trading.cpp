// The generated Expert Advisor's trading code, compiled and replayed: the MQL5 text between the
// "nnwb:trading" markers of nnwb_expert.mq5 (its inputs, whose defaults come from the
// experiment's trading settings, and NnwbTrade with its helpers) is compiled as C++ with the
// system's c++, the shims of the MQL5 built-ins (tests/onnx/mql5/MqlShim.h) and of the trading
// ones over a simulated broker (MqlTradeShim.h: a recording CTrade, one position, fills at the
// tick in points); the only text rewritten is MQL5's array parameters and the word `input`.
// The harness below replays the bundled EURUSD H1 file (and, where ../shared/data is present,
// the newest 8,000 XAUUSD H1 bars, for gaps) bar by bar with seeded signals: at each
// open the broker's stop or take, then the expert's NnwbTrade on the bar that just closed, then
// the bar's range against the position's stop and take, as MetaTrader's server would. Every
// trade the expert opens and closes (bar, direction, entry and exit price, reason) must equal
// nnwb's evaluateTrading (simulateTrades) on the same bars and signals, under settings that
// exercise the threshold, an ensemble's minimum agreement, opposite and time exits, reversals, ATR
// stops and takes (gaps, a level already passed at the entry), slippage and the file's or a given
// spread. Before Qt, whose `signals` keyword macro would rewrite a parameter name in it.
#include "model/trading/TradingEvaluation.h"

#include <QtTest>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <sstream>

#include "Mql5Harness.h"
#include "app/export/Mql5Expert.h"
#include "app/export/Mql5Trading.h"
#include "common/TestUtil.h"
#include "model/data/BarImporter.h"
#include "model/data/DataConfig.h"
#include "nnwb/TestPaths.h"

using namespace nnwb;

namespace {

// The trading section of an expert's source as C++: `input` dropped, array parameters rewritten.
std::string tradingCodeAsCpp(const std::string& mq5) {
    std::string code =
        test::mql5Section(mq5, onnxexport::kMql5TradingBegin, onnxexport::kMql5TradingEnd);
    code = std::regex_replace(code, std::regex(R"((^|\n)input\s+)"), "$1");
    return std::regex_replace(code, std::regex(R"((\w+)\s*&\s*(\w+)\s*\[\])"),
                              "nnwb_mql::Array<$1>& $2");
}

// Before the section: the harness's NnwbSetLevels (the EA's sets them through CTrade).
const char* kHarnessPrelude = R"CPP(
    bool NnwbSetLevels(ulong, double stop, double take, double) {
        nnwb_mql::broker().stop = stop;
        nnwb_mql::broker().take = take;
        return true;
    }
)CPP";

// main(): argv[1] holds "point slippage first last n" and n bars "time open high low close
// spread signal output"; writes to argv[2] the refused orders' count and then each trade
// "dir entryBar exitBar entry exit reason" (points).
const char* kHarnessMain = R"CPP(
    int main(int argc, char** argv) {
        if (argc < 3) return 2;
        FILE* in = std::fopen(argv[1], "r");
        if (!in) return 3;
        double point = 0, slippage = 0;
        long long first = 0, last = 0;
        int n = 0;
        if (std::fscanf(in, "%lf %lf %lld %lld %d", &point, &slippage, &first, &last, &n) != 5)
            return 4;
        nnwb_mql::Array<MqlRates> rates;
        std::vector<double> spread(n);
        std::vector<int> signal(n);
        std::vector<float> output(n), agreement(n);
        for (int i = 0; i < n; ++i) {
            MqlRates r;
            if (std::fscanf(in, "%lld %lf %lf %lf %lf %lf %d %f %f", &r.time, &r.open, &r.high,
                            &r.low, &r.close, &spread[i], &signal[i], &output[i],
                            &agreement[i]) != 9)
                return 5;
            rates.v.push_back(r);
        }
        std::fclose(in);
        nnwb_mql::Broker& b = nnwb_mql::broker();
        b.point = point;
        b.slippage = slippage;
        b.reason = &g_nnwb_reason;
        CTrade trade;
        trade.SetExpertMagicNumber(InpMagic);
        auto pts = [&](double price) { return NnwbPoints(price, point); };
        for (long long i = first + 1; i <= last; ++i) {
            const MqlRates& r = rates[int(i)];
            b.bar = i;
            b.barTime = r.time;
            b.bid = pts(r.open);  // the open tick: the previous bar's spread
            b.ask = b.bid + spread[i - 1];
            if (b.open) {  // the server: a stop or take the open went through
                const double o = b.dir > 0 ? b.bid : b.ask;
                if (b.stop != 0 && b.dir * (o - b.stop) <= 0)
                    b.close(o, "stop", "open");
                else if (b.take != 0 && b.dir * (o - b.take) >= 0)
                    b.close(o, "take", "open");
            }
            NnwbTrade(rates, int(i), signal[i - 1], output[i - 1], agreement[i - 1], trade);
            if (b.open) {  // the server: the bar's range, at the bar's spread; both: the stop
                const double d = b.dir;
                const double worst = d > 0 ? pts(r.low) : pts(r.high) + spread[i];
                const double best = d > 0 ? pts(r.high) : pts(r.low) + spread[i];
                if (b.stop != 0 && d * (worst - b.stop) <= 0)
                    b.close(b.stop, "stop", "range");
                else if (b.take != 0 && d * (best - b.take) >= 0)
                    b.close(b.take, "take", "range");
            }
            if (i == last && b.open) b.close(pts(r.close) + (b.dir > 0 ? 0 : spread[i]), "end", "end");
        }
        FILE* out = std::fopen(argv[2], "w");
        std::fprintf(out, "%d %zu\n", b.refused, b.orders.size());
        for (const auto& t : b.closed)
            std::fprintf(out, "%d %lld %lld %.17g %.17g %s %s\n", t.dir, t.entryBar, t.exitBar,
                         t.entry, t.exit, t.reason.c_str(), t.by.c_str());
        std::fclose(out);
        return 0;
    }
)CPP";

struct TwinTrade {
    int dir = 0;
    size_t entryBar = 0, exitBar = 0;
    double entry = 0, exit = 0;
    std::string reason, by;
};

struct TwinRun {
    std::string error;
    int refused = -1;
    size_t orders = 0;
    std::vector<TwinTrade> trades;
};

TwinRun runTwin(const std::string& mq5, const BarSeries& bars, const std::vector<double>& spread,
                const SignalSeries& s, double point, double slippage, const std::string& dir,
                const std::string& tag) {
    TwinRun h;
    const std::string code = tradingCodeAsCpp(mq5);
    if (code.empty()) return h.error = "no trading markers in the generated source", h;
    const std::string cpp = dir + "/" + tag + ".cpp", exe = dir + "/" + tag;
    {
        std::ofstream f(cpp);
        f << "#include \"" << test::mql5ShimDir() << "MqlShim.h\"\n#include \""
          << test::mql5ShimDir() << "MqlTradeShim.h\"\n"
          << kHarnessPrelude << code << kHarnessMain;
    }
    h.error = test::compileHarness(cpp, exe);
    if (!h.error.empty()) return h;
    const size_t last = s.bar.back();
    const std::string barsFile = dir + "/" + tag + ".bars", outFile = dir + "/" + tag + ".out";
    {
        std::ofstream f(barsFile);
        f.precision(17);
        f << point << ' ' << slippage << ' ' << s.bar.front() << ' ' << last << ' ' << last + 1
          << '\n';
        for (size_t i = 0, k = 0; i <= last; ++i) {
            int sig = 0;
            float out = 0, agree = 1;
            if (k < s.size() && s.bar[k] == i) {
                sig = s.signal[k];
                out = s.outputs[k][size_t(sig)];
                agree = s.agreementAt(k);
                ++k;
            }
            char o[32], a[32];
            std::snprintf(o, sizeof o, "%.9g", double(out));
            std::snprintf(a, sizeof a, "%.9g", double(agree));
            f << bars.time[i] << ' ' << bars.open[i] << ' ' << bars.high[i] << ' ' << bars.low[i]
              << ' ' << bars.close[i] << ' ' << spread[i] << ' ' << sig << ' ' << o << ' ' << a
              << '\n';
        }
    }
    QProcess run;
    run.start(QString::fromStdString(exe),
              {QString::fromStdString(barsFile), QString::fromStdString(outFile)});
    if (!run.waitForFinished(300000) || run.exitCode() != 0)
        return h.error = "the harness failed: " + std::to_string(run.exitCode()), h;
    std::ifstream f(outFile);
    f >> h.refused >> h.orders;
    TwinTrade t;
    while (f >> t.dir >> t.entryBar >> t.exitBar >> t.entry >> t.exit >> t.reason >> t.by)
        h.trades.push_back(t);
    return h;
}

// Seeded outputs for bars first..last: three uniform values, the signal their argmax.
SignalSeries seededSignals(size_t first, size_t last, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    SignalSeries s;
    for (size_t i = first; i <= last; ++i) {
        std::array<float, 3> o{u(rng), u(rng), u(rng)};
        int best = 0;
        for (int c = 1; c < 3; ++c)
            if (o[size_t(c)] > o[size_t(best)]) best = c;
        s.add(i, o, best);
    }
    return s;
}

}  // namespace

class TestMql5Trading : public QObject {
    Q_OBJECT
private slots:
    void expertTradesAsNnwbSimulates_data() {
        QTest::addColumn<QString>("file");  // "": the bundled EURUSD H1 file
        QTest::addColumn<QString>("settings");
        QTest::addColumn<QStringList>("exits");  // "REASON by WHO" each row must have
        QTest::newRow("opposite exits and reversals, no levels, file spread")
            << QString() << R"({"threshold": 0.5})" << QStringList{"opposite by expert"};
        QTest::newRow("time exit, ATR stop and take, slippage, no opposite exit")
            << QString() << R"({"threshold": 0.4, "exitOnOpposite": false, "exitAfterBars": 6,
                   "stopAtr": 1.5, "takeAtr": 2.0, "slippagePoints": 2})"
            << QStringList{"time by expert", "stop by range", "take by range"};
        QTest::newRow("tight levels (levels passed at the entry), reversals")
            << QString()
            << R"({"threshold": 0.3, "exitAfterBars": 3, "stopAtr": 0.3, "takeAtr": 0.4,
                   "atrPeriod": 5, "slippagePoints": 1})"
            << QStringList{"stop by expert", "take by range", "stop by range", "opposite by expert",
                           "time by expert"};
        QTest::newRow("positions held up to 24 bars, a wide take")
            << QString()
            << R"({"threshold": 0.45, "exitOnOpposite": false, "exitAfterBars": 24, "stopAtr": 0.6,
                   "takeAtr": 3})"
            << QStringList{"stop by range", "take by range", "time by expert"};
        QTest::newRow("an ensemble's agreement: minAgreement 0.6 (2 of 3 members)")
            << QString() << R"({"threshold": 0.4, "minAgreement": 0.6, "exitAfterBars": 6})"
            << QStringList{"opposite by expert", "time by expert"};
        QTest::newRow("given spread, a take only")
            << QString()
            << R"({"threshold": 0.6, "takeAtr": 1, "spreadSource": "given", "spreadPoints": 12})"
            << QStringList{"take by range", "opposite by expert"};
        // The shared gold file's daily session break opens with gaps: stops at the open.
        const QString gold = QStringLiteral(NNWB_SHARED_DATA_DIR "/XAUUSD_H1.csv");
        if (QFileInfo::exists(gold))
            QTest::newRow("XAUUSD shared, newest 8000 bars, gaps through the stop at the open")
                << gold << R"({"threshold": 0.45, "exitOnOpposite": false, "exitAfterBars": 24,
                       "stopAtr": 0.6, "takeAtr": 3})"
                << QStringList{"stop by open", "stop by range", "take by range", "time by expert"};
    }

    void expertTradesAsNnwbSimulates() {
        QFETCH(QString, file);
        QFETCH(QString, settings);
        const TradingSettings t =
            TradingSettings::fromJson(nlohmann::json::parse(settings.toStdString()));
        LoadResult loaded = loadBarFile(file.isEmpty() ? defaultDataFile() : file.toStdString());
        QVERIFY2(loaded.ok, loaded.error.c_str());
        const BarSeries& bars = loaded.bars;
        // From bar 10: the first trades have no ATR yet (no stop or take), as in nnwb.
        const size_t first = file.isEmpty() ? 10 : bars.size() - 8000;
        SignalSeries s = seededSignals(first, bars.size() - 1, 20261128);
        if (t.minAgreement > 0) {  // an ensemble of 3: 1, 2 or 3 members vote for each signal
            std::mt19937 rng(44);
            for (size_t k = 0; k < s.size(); ++k) s.agreement.push_back(float(rng() % 3 + 1) / 3);
        }
        const TradingReport sim = evaluateTrading(bars, s, t);
        std::vector<double> spread = t.spreadSource == "file" && bars.hasSpread
                                         ? bars.spread
                                         : std::vector<double>(bars.size(), t.spreadPoints);
        ModelBundle b;
        b.experiment = "twin";
        b.timeframe = 3600;
        const std::string mq5 = onnxexport::mql5ExpertSource(b, onnxexport::kMql5ModelFile, t);
        const std::string dir = nnwb::test::tempDir();
        static int runs = 0;
        const TwinRun twin = runTwin(mq5, bars, spread, s, sim.point, t.slippagePoints, dir,
                                     "twin" + std::to_string(runs++));
        QVERIFY2(twin.error.empty(), twin.error.c_str());
        QCOMPARE(twin.refused, 0);
        QVERIFY2(sim.trades.size() > 50, std::to_string(sim.trades.size()).c_str());
        QCOMPARE(twin.trades.size(), sim.trades.size());
        std::map<std::string, int> reasons;
        for (size_t k = 0; k < sim.trades.size(); ++k) {
            const Trade& a = sim.trades[k];
            const TwinTrade& e = twin.trades[k];
            const std::string where = "trade " + std::to_string(k) + " entered at bar " +
                                      std::to_string(a.entryBar) +
                                      " (expert: " + std::to_string(e.entryBar) + ")";
            QVERIFY2(e.dir == a.direction && e.entryBar == a.entryBar && e.exitBar == a.exitBar,
                     (where + ": exit bar " + std::to_string(a.exitBar) + " vs " +
                      std::to_string(e.exitBar))
                         .c_str());
            QVERIFY2(std::abs(e.entry - a.entryPrice / sim.point) < 1e-6, where.c_str());
            QVERIFY2(std::abs(e.exit - a.exitPrice / sim.point) < 1e-6, where.c_str());
            QCOMPARE(e.reason, std::string(exitReasonName(a.exitReason)));
            ++reasons[e.reason];
            ++reasons[e.reason + " by " + e.by];
        }
        std::string counts;
        for (const auto& [k, v] : reasons) counts += k + " " + std::to_string(v) + "; ";
        qInfo("%zu trades: %s", sim.trades.size(), counts.c_str());
        // Each row exercises the exits it names.
        QFETCH(QStringList, exits);
        for (const QString& x : exits) QVERIFY2(reasons[x.toStdString()] > 0, qPrintable(x));
    }

    // The inputs' defaults are the experiment's trading settings; the header lists what a live
    // account does otherwise.
    void inputsComeFromTheSettings() {
        TradingSettings t;
        t.threshold = 0.65;
        t.exitOnOpposite = false;
        t.exitAfterBars = 12;
        t.stopAtr = 1.25;
        t.takeAtr = 3;
        t.atrPeriod = 21;
        t.slippagePoints = 2.5;
        ModelBundle b;
        b.timeframe = 3600;
        const std::string mq5 = onnxexport::mql5ExpertSource(b, onnxexport::kMql5ModelFile, t);
        for (const char* line :
             {"input double InpThreshold = 0.65;", "input bool   InpExitOnOpposite = false;",
              "input int    InpExitAfterBars = 12;", "input double InpStopAtr = 1.25;",
              "input double InpTakeAtr = 3;", "input int    InpAtrPeriod = 21;",
              "input int    InpSlippagePoints = 3;", "input double InpLots = 0.1;",
              "input ulong  InpMagic = ", "#include <Trade\\Trade.mqh>",
              "NnwbTrade(rates, n, g_signal, y[g_signal], 1.0, g_trade);",
              "input double InpMinAgreement = 0;", "g_trade.SetExpertMagicNumber(InpMagic);"})
            QVERIFY2(mq5.find(line) != std::string::npos, line);
        QVERIFY(mq5.find("It places no orders") == std::string::npos);
        QVERIFY(mq5.find("swap") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestMql5Trading)
#include "tst_mql5_trading.moc"
