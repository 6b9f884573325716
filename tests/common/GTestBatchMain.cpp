// main() of a GoogleTest batch program: runs only the tests of the file named by the program's
// own name (build/tests/tst_cpu_gemm is a link to the batch program) or by its first argument,
// by adding every other file's tests to the negative part of --gtest_filter.
#include "common/TestBatchName.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <string>

namespace {

// Every test of the program as "file stem" -> full names.
std::set<std::string> fileStems(const testing::UnitTest& unit) {
    std::set<std::string> stems;
    for (int i = 0; i < unit.total_test_suite_count(); ++i) {
        const testing::TestSuite& suite = *unit.GetTestSuite(i);
        for (int j = 0; j < suite.total_test_count(); ++j)
            stems.insert(nnwb::testbatch::fileStem(suite.GetTestInfo(j)->file()));
    }
    return stems;
}

// The tests of the other files, as a filter list (A.b:C.d).
std::string otherFilesTests(const testing::UnitTest& unit, const std::string& stem) {
    std::string list;
    for (int i = 0; i < unit.total_test_suite_count(); ++i) {
        const testing::TestSuite& suite = *unit.GetTestSuite(i);
        for (int j = 0; j < suite.total_test_count(); ++j) {
            const testing::TestInfo& info = *suite.GetTestInfo(j);
            if (nnwb::testbatch::fileStem(info.file()) == stem) continue;
            list += (list.empty() ? "" : ":") + std::string(suite.name()) + "." + info.name();
        }
    }
    return list;
}

}  // namespace

int main(int argc, char* argv[]) {
    const std::string self = argc > 0 ? nnwb::testbatch::fileStem(argv[0]) : "";
    testing::InitGoogleTest(&argc, argv);
    const testing::UnitTest& unit = *testing::UnitTest::GetInstance();
    const std::set<std::string> stems = fileStems(unit);
    std::string name = self;
    if (!stems.count(name)) {
        if (argc < 2 || !stems.count(argv[1])) {
            std::fprintf(stderr,
                         "%s: run it as one of its tests (a link of that name, or the name as "
                         "first argument):",
                         self.c_str());
            for (const std::string& stem : stems) std::fprintf(stderr, " %s", stem.c_str());
            std::fprintf(stderr, "\n");
            return 2;
        }
        name = argv[1];
    }
    const std::string others = otherFilesTests(unit, name);
    if (!others.empty()) {
        std::string filter = GTEST_FLAG_GET(filter);
        filter += (filter.find('-') == std::string::npos ? "-" : ":") + others;
        GTEST_FLAG_SET(filter, filter);
    }
    return RUN_ALL_TESTS();
}
