// The real price files of ../shared/data (skipped where that directory is missing) and the
// bundled default data set: bar counts, first/last bars, summaries, parse speed, and a full
// pipeline build. Each file is parsed once.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "common/ParamName.h"
#include "model/data/BarImporter.h"
#include "model/data/DataConfig.h"
#include "model/data/DataPipeline.h"
#include "model/data/DataSummary.h"
#include "nnwb/TestPaths.h"

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

bool sharedDataExists() {
    return std::filesystem::exists(NNWB_SHARED_DATA_DIR);
}

// Each shared file parsed once for the whole program (Qt Test's initTestCase did this once for
// its one test object; here two suites use them).
std::map<std::string, LoadResult> loaded_;
bool loadedOnce = false;
std::string slowParse;  // which file took too long, if one did

void loadSharedFiles() {
    if (loadedOnce || !sharedDataExists()) return;
    loadedOnce = true;
    for (const Expected& e : kFiles) {
        const auto t0 = std::chrono::steady_clock::now();
        loaded_[e.file] = loadBarFile(sharedFile(e.file));
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count();
        std::printf("%s: parsed in %.1f ms\n", e.file, ms);
#ifdef NDEBUG
        if (!(ms < 1000.0) && slowParse.empty())
            slowParse = std::string(e.file) + " took " + std::to_string(ms) + " ms";
#endif
    }
}

// Loads the shared files before the first test of a suite; a parse over a second fails the
// suite's set-up, so none of its tests runs (as a failed initTestCase did).
class RealData : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        loadSharedFiles();
        ASSERT_TRUE(slowParse.empty()) << slowParse;
    }
};

class SharedFiles : public ::testing::TestWithParam<int> {
protected:
    static void SetUpTestSuite() {
        loadSharedFiles();
        ASSERT_TRUE(slowParse.empty()) << slowParse;
    }
};

}  // namespace

TEST_P(SharedFiles, sharedFiles) {
    if (!sharedDataExists())
        GTEST_SKIP() << "shared data directory " NNWB_SHARED_DATA_DIR " is missing";
    const int index = GetParam();
    const Expected& e = kFiles[index];
    const LoadResult& r = loaded_.at(e.file);
    ASSERT_TRUE(r.ok) << r.error.c_str();
    ASSERT_TRUE(r.warnings.empty());  // high >= max(open, close), low <= min(open, close)
    ASSERT_EQ(r.bars.size(), e.bars);
    const DataSummary s = summarizeBars(r.bars);
    ASSERT_EQ(s.format, std::string(e.format));
    ASSERT_EQ(s.bars, e.bars);
    ASSERT_EQ(formatBarTime(s.firstTime), std::string(e.first));
    ASSERT_EQ(formatBarTime(s.lastTime), std::string(e.last));
    ASSERT_EQ(s.timeframe, int64_t(3600));
    ASSERT_TRUE(s.gaps > 0);  // weekends
    ASSERT_TRUE(s.both > 0 && s.both < s.buy && s.both < s.sell);
    ASSERT_TRUE(s.buy > e.bars / 5 && s.sell > e.bars / 5);
}
TEST_F(RealData, summaryFigures) {
    if (!sharedDataExists())
        GTEST_SKIP() << "shared data directory " NNWB_SHARED_DATA_DIR " is missing";
    // Independently counted (a plain script over the files).
    const DataSummary s = summarizeBars(loaded_.at("EURUSD_H1.csv").bars);
    ASSERT_EQ(s.buy, size_t(16804));
    ASSERT_EQ(s.sell, size_t(16938));
    ASSERT_EQ(s.both, size_t(1551));
    const nlohmann::ordered_json j = summaryToJson(s);
    ASSERT_EQ(j.dump(),
              std::string("{\"format\":\"mt5\",\"bars\":74439,\"first\":\"2007-01-01 21:00\","
                          "\"last\":\"2018-12-31 21:00\",\"timeframe\":3600,\"gaps\":641,"
                          "\"buy\":16804,\"sell\":16938,\"both\":1551}"));
    const DataSummary spy = summarizeBars(loaded_.at("SPY_H1.csv").bars);
    ASSERT_EQ(spy.buy, size_t(9318));
    ASSERT_EQ(spy.sell, size_t(9259));
    ASSERT_EQ(spy.both, size_t(975));
}
TEST_F(RealData, pipelineOnRealBars) {
    if (!sharedDataExists())
        GTEST_SKIP() << "shared data directory " NNWB_SHARED_DATA_DIR " is missing";
    DataConfig c;  // defaults: window 20, 12 features, z-score, 20 % validation
    const auto t0 = std::chrono::steady_clock::now();
    const DataResult r = buildDataSplitFromBars(c, loaded_.at("NZDUSD_H1.csv").bars);
    std::printf(
        "NZDUSD split built in %.1f ms\n",
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    ASSERT_TRUE(r.ok) << r.error.c_str();
    const size_t samples = 74451 - 1 - (33 + 19);  // last bar and warm-up + window unused
    ASSERT_EQ(r.split.train.size() + r.split.validation.size() + 19, samples);
    for (float v : r.split.train.x) ASSERT_TRUE(std::isfinite(v));
    for (float v : r.split.validation.x) ASSERT_TRUE(std::isfinite(v));
}
TEST_F(RealData, bundledDefaultDataSet) {
    const std::string path = defaultDataFile();
    ASSERT_TRUE(std::filesystem::exists(path)) << path.c_str();
    const LoadResult r = loadBarFile(path);
    ASSERT_TRUE(r.ok) << r.error.c_str();
    ASSERT_EQ(r.bars.format, std::string("mt5"));
    ASSERT_EQ(formatBarTime(r.bars.time.front()), std::string("2017-01-02 23:00"));
    ASSERT_EQ(formatBarTime(r.bars.time.back()), std::string("2018-12-31 21:00"));
    ASSERT_EQ(r.bars.size(), size_t(12323));
    if (!sharedDataExists()) return;
    // Rows copied verbatim: the file is the header plus a contiguous run of the source.
    const std::string bundled = readAll(path), full = readAll(sharedFile("EURUSD_H1.csv"));
    const size_t headerEnd = bundled.find('\n') + 1;
    ASSERT_EQ(bundled.substr(0, headerEnd), full.substr(0, headerEnd));
    const size_t at = full.find(bundled.substr(headerEnd));
    ASSERT_TRUE(at != std::string::npos);
    const size_t prevRow = full.rfind('\n', at - 2) + 1;
    ASSERT_EQ(full.substr(prevRow, 5), std::string("2016."));  // nothing of 2017 left out
    ASSERT_EQ(at + bundled.size() - headerEnd, full.size());   // source ends in 2018
    const DataResult d = buildDataSplitFromBars(DataConfig(), r.bars);
    ASSERT_TRUE(d.ok) << d.error.c_str();
}

INSTANTIATE_TEST_SUITE_P(RealData, SharedFiles, ::testing::Range(0, 4),
                         [](const ::testing::TestParamInfo<int>& info) {
                             return test::paramName(kFiles[info.param].file);
                         });
