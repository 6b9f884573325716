// The real price files of ../shared/data (skipped where that directory is missing) and the
// bundled default data set: bar counts, first/last bars, summaries, parse speed, and a full
// pipeline build. Each file is parsed once.
#include <QtTest>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "model/data/BarImporter.h"
#include "model/data/DataConfig.h"
#include "model/data/DataPipeline.h"
#include "model/data/DataSummary.h"

using namespace nnwb;

namespace {

struct Expected {
    const char* file;
    size_t bars;
    const char* format;
    const char* first;
    const char* last;
};
const Expected kFiles[] = {
    {"EURUSD_H1.csv", 74439, "mt5", "2007-01-01 21:00", "2018-12-31 21:00"},
    {"XAUUSD_H1.csv", 76499, "mt5", "2006-03-20 00:00", "2019-02-25 23:00"},
    {"NZDUSD_H1.csv", 74451, "mt5", "2007-01-01 21:00", "2018-12-31 21:00"},
    {"SPY_H1.csv", 40832, "csv", "1998-01-02 09:00", "2021-03-31 15:00"},
};

std::string sharedFile(const char* name) {
    return std::string(NNWB_SHARED_DATA_DIR) + "/" + name;
}

std::string readAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace

class TestRealData : public QObject {
    Q_OBJECT

    std::map<std::string, LoadResult> loaded_;

private slots:
    void initTestCase() {
        if (!QFileInfo::exists(NNWB_SHARED_DATA_DIR)) return;
        for (const Expected& e : kFiles) {
            const auto t0 = std::chrono::steady_clock::now();
            loaded_[e.file] = loadBarFile(sharedFile(e.file));
            const double ms =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                    .count();
            qInfo("%s: parsed in %.1f ms", e.file, ms);
#ifdef NDEBUG
            QVERIFY2(ms < 1000.0, qPrintable(QString("%1 took %2 ms").arg(e.file).arg(ms)));
#endif
        }
    }
    void sharedFiles_data() {
        QTest::addColumn<int>("index");
        for (int i = 0; i < 4; ++i) QTest::newRow(kFiles[i].file) << i;
    }
    void sharedFiles() {
        if (!QFileInfo::exists(NNWB_SHARED_DATA_DIR))
            QSKIP("shared data directory " NNWB_SHARED_DATA_DIR " is missing");
        QFETCH(int, index);
        const Expected& e = kFiles[index];
        const LoadResult& r = loaded_.at(e.file);
        QVERIFY2(r.ok, r.error.c_str());
        QVERIFY(r.warnings.empty());  // high >= max(open, close), low <= min(open, close)
        QCOMPARE(r.bars.size(), e.bars);
        const DataSummary s = summarizeBars(r.bars);
        QCOMPARE(s.format, std::string(e.format));
        QCOMPARE(s.bars, e.bars);
        QCOMPARE(formatBarTime(s.firstTime), std::string(e.first));
        QCOMPARE(formatBarTime(s.lastTime), std::string(e.last));
        QCOMPARE(s.timeframe, int64_t(3600));
        QVERIFY(s.gaps > 0);  // weekends
        QVERIFY(s.both > 0 && s.both < s.buy && s.both < s.sell);
        QVERIFY(s.buy > e.bars / 5 && s.sell > e.bars / 5);
    }
    void summaryFigures() {
        if (!QFileInfo::exists(NNWB_SHARED_DATA_DIR))
            QSKIP("shared data directory " NNWB_SHARED_DATA_DIR " is missing");
        // Independently counted (a plain script over the files).
        const DataSummary s = summarizeBars(loaded_.at("EURUSD_H1.csv").bars);
        QCOMPARE(s.buy, size_t(16804));
        QCOMPARE(s.sell, size_t(16938));
        QCOMPARE(s.both, size_t(1551));
        const nlohmann::ordered_json j = summaryToJson(s);
        QCOMPARE(j.dump(),
                 std::string("{\"format\":\"mt5\",\"bars\":74439,\"first\":\"2007-01-01 21:00\","
                             "\"last\":\"2018-12-31 21:00\",\"timeframe\":3600,\"gaps\":641,"
                             "\"buy\":16804,\"sell\":16938,\"both\":1551}"));
        const DataSummary spy = summarizeBars(loaded_.at("SPY_H1.csv").bars);
        QCOMPARE(spy.buy, size_t(9318));
        QCOMPARE(spy.sell, size_t(9259));
        QCOMPARE(spy.both, size_t(975));
    }
    void pipelineOnRealBars() {
        if (!QFileInfo::exists(NNWB_SHARED_DATA_DIR))
            QSKIP("shared data directory " NNWB_SHARED_DATA_DIR " is missing");
        DataConfig c;  // defaults: window 20, 12 features, z-score, 20 % validation
        const auto t0 = std::chrono::steady_clock::now();
        const DataResult r = buildDataSplitFromBars(c, loaded_.at("NZDUSD_H1.csv").bars);
        qInfo("NZDUSD split built in %.1f ms",
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                  .count());
        QVERIFY2(r.ok, r.error.c_str());
        const size_t samples = 74451 - 1 - (33 + 19);  // last bar and warm-up + window unused
        QCOMPARE(r.split.train.size() + r.split.validation.size() + 19, samples);
        for (float v : r.split.train.x) QVERIFY(std::isfinite(v));
        for (float v : r.split.validation.x) QVERIFY(std::isfinite(v));
    }
    void bundledDefaultDataSet() {
        const std::string path = defaultDataFile();
        QVERIFY2(QFileInfo::exists(QString::fromStdString(path)), path.c_str());
        const LoadResult r = loadBarFile(path);
        QVERIFY2(r.ok, r.error.c_str());
        QCOMPARE(r.bars.format, std::string("mt5"));
        QCOMPARE(formatBarTime(r.bars.time.front()), std::string("2017-01-02 23:00"));
        QCOMPARE(formatBarTime(r.bars.time.back()), std::string("2018-12-31 21:00"));
        QCOMPARE(r.bars.size(), size_t(12323));
        if (!QFileInfo::exists(NNWB_SHARED_DATA_DIR)) return;
        // Rows copied verbatim: the file is the header plus a contiguous run of the source.
        const std::string bundled = readAll(path), full = readAll(sharedFile("EURUSD_H1.csv"));
        const size_t headerEnd = bundled.find('\n') + 1;
        QCOMPARE(bundled.substr(0, headerEnd), full.substr(0, headerEnd));
        const size_t at = full.find(bundled.substr(headerEnd));
        QVERIFY(at != std::string::npos);
        const size_t prevRow = full.rfind('\n', at - 2) + 1;
        QCOMPARE(full.substr(prevRow, 5), std::string("2016."));  // nothing of 2017 left out
        QCOMPARE(at + bundled.size() - headerEnd, full.size());   // source ends in 2018
        const DataResult d = buildDataSplitFromBars(DataConfig(), r.bars);
        QVERIFY2(d.ok, d.error.c_str());
    }
};

QTEST_APPLESS_MAIN(TestRealData)
#include "tst_real_data.moc"
