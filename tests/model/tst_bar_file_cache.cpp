// A price file is parsed once per process while it does not change (issue 26: the Data pane's
// inspection and Train read it once between them): a second read of an unchanged file is not
// parsed again, a changed file is (also one rewritten with its size and modification time put
// back), a file that cannot be read is never kept, and building a data split after reading the
// file parses nothing more.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "model/data/BarFileCache.h"
#include "model/data/DataConfig.h"
#include "model/data/DataPipeline.h"

using namespace nnwb;

namespace {

std::string writeBars(const std::filesystem::path& file, int bars, double start) {
    std::ofstream out(file);
    out << "time,open,high,low,close,volume\n";
    for (int i = 0; i < bars; ++i) {
        const double o = start + 0.001 * ((i * 7) % 13);
        out << "2024-01-" << (1 + i / 24 < 10 ? "0" : "") << 1 + i / 24 << " "
            << (i % 24 < 10 ? "0" : "") << i % 24 << ":00:00," << o << "," << o + 0.002 << ","
            << o - 0.002 << "," << o + 0.0005 << ",100\n";
    }
    return file.string();
}

std::filesystem::path cacheDir() {
    auto d =
        std::filesystem::temp_directory_path() /
        ("nnwb-bar-cache-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "-" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    std::filesystem::create_directories(d);
    return d;
}

}  // namespace

TEST(BarFileCache, UnchangedFileIsParsedOnce) {
    const auto dir = cacheDir();
    const std::string file = writeBars(dir / "bars.csv", 200, 1.1);
    const int before = barFileParses();
    const LoadResult a = loadBarFileCached(file);
    ASSERT_TRUE(a.ok) << a.error;
    const LoadResult b = loadBarFileCached(file);
    ASSERT_TRUE(b.ok) << b.error;
    EXPECT_EQ(barFileParses(), before + 1);
    EXPECT_EQ(a.bars.size(), 200u);
    EXPECT_EQ(b.bars.close, a.bars.close);
    std::filesystem::remove_all(dir);
}

TEST(BarFileCache, ChangedFileIsParsedAgain) {
    const auto dir = cacheDir();
    const std::string file = writeBars(dir / "bars.csv", 200, 1.1);
    const LoadResult a = loadBarFileCached(file);
    ASSERT_TRUE(a.ok) << a.error;
    const int before = barFileParses();
    writeBars(dir / "bars.csv", 150, 2.2);  // other size and contents
    const LoadResult b = loadBarFileCached(file);
    ASSERT_TRUE(b.ok) << b.error;
    EXPECT_EQ(barFileParses(), before + 1);
    EXPECT_EQ(b.bars.size(), 150u);
    std::filesystem::remove_all(dir);
}

// Issue 48 item 8 (a sweep worker keeps its data while this cache does): a rewrite of the same
// size whose modification time is put back was taken for the unchanged file (kept by size and
// modification time); its status-change time moved, and that is now part of the key.
TEST(BarFileCache, RewriteWithItsTimePutBackIsParsedAgain) {
    const auto dir = cacheDir();
    const std::string file = writeBars(dir / "bars.csv", 200, 1.1);
    const LoadResult a = loadBarFileCached(file);
    ASSERT_TRUE(a.ok) << a.error;
    struct stat before {};
    ASSERT_EQ(::stat(file.c_str(), &before), 0);
    writeBars(dir / "bars.csv", 200, 1.7);  // the same size (prices 1.7xx for 1.1xx)
    const timespec times[2] = {before.st_atim, before.st_mtim};
    ASSERT_EQ(::utimensat(AT_FDCWD, file.c_str(), times, 0), 0);
    struct stat after {};
    ASSERT_EQ(::stat(file.c_str(), &after), 0);
    ASSERT_EQ(after.st_size, before.st_size);
    const LoadResult b = loadBarFileCached(file);
    ASSERT_TRUE(b.ok) << b.error;
    EXPECT_NE(b.bars.close, a.bars.close);
    std::filesystem::remove_all(dir);
}

TEST(BarFileCache, FailuresAreNotKept) {
    const auto dir = cacheDir();
    const std::string file = (dir / "missing.csv").string();
    const LoadResult a = loadBarFileCached(file);
    EXPECT_FALSE(a.ok);
    writeBars(dir / "missing.csv", 120, 1.3);
    const LoadResult b = loadBarFileCached(file);
    ASSERT_TRUE(b.ok) << b.error;
    EXPECT_EQ(b.bars.size(), 120u);
    std::filesystem::remove_all(dir);
}

TEST(BarFileCache, DataSplitAfterInspectionParsesNothingMore) {
    const auto dir = cacheDir();
    const std::string file = writeBars(dir / "bars.csv", 300, 1.2);
    ASSERT_TRUE(loadBarFileCached(file).ok);  // the Data pane's inspection
    const int before = barFileParses();
    DataConfig cfg;
    cfg.file = file;
    cfg.window = 8;
    const DataResult r = buildDataSplit(cfg, dir.string());  // a Train's data load
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(barFileParses(), before);
    std::filesystem::remove_all(dir);
}
