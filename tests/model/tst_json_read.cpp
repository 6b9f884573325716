// parseJson / loadJsonFile (model/JsonRead): depth bounded while parsing (a 100,000-deep
// document is refused quickly, with its line, and no crash), number overflow and syntax errors
// with FILE:LINE:COL and without nlohmann's prefix, excerpts cut to size, and readFile refusing
// non-regular and oversized files.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>

#include "common/TestUtil.h"
#include "model/AtomicFile.h"
#include "model/JsonRead.h"

using namespace nnwb;

namespace {
std::string messageOf(const std::string& text, const std::string& file = "f.json") {
    try {
        parseJson(text, file);
    } catch (const JsonReadError& e) {
        return e.what();
    }
    return "(accepted)";
}
bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}
}  // namespace

TEST(JsonRead, deepNestingRefusedWithItsLine) {
    const std::string deep =
        "{\n\"a\":\n" + std::string(100000, '[') + "1" + std::string(100000, ']') + "}";
    const auto t0 = std::chrono::steady_clock::now();
    const std::string m = messageOf(deep);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
    EXPECT_TRUE(contains(m, "f.json:3:64: nested deeper than 64 levels")) << m;
    // 64 levels are read; strings with brackets do not count.
    const std::string ok = std::string(64, '[') + "\"[[{\\\"\"" + std::string(64, ']');
    EXPECT_EQ(parseJson(ok, "f").dump().size(), ok.size());
    EXPECT_TRUE(contains(messageOf("[" + ok + "]"), "nested deeper than 64")) << messageOf(ok);
    EXPECT_NO_THROW(parseOrderedJson(ok, "f"));
    EXPECT_THROW(parseOrderedJson("[" + ok + "]", "f"), JsonReadError);
}

TEST(JsonRead, numberOverflowAndSyntaxNamed) {
    EXPECT_EQ(messageOf("{\n  \"x\": [1,\n 1e999]}"),
              "f.json:3:2: number overflow (1e999 is beyond a double)");
    const std::string m = messageOf("{\n\"a\": tru}");
    EXPECT_TRUE(contains(m, "f.json:2:")) << m;
    EXPECT_TRUE(contains(m, "not valid JSON (parse error")) << m;
    EXPECT_FALSE(contains(m, "json.exception")) << m;
}

TEST(JsonRead, excerptIsBounded) {
    nlohmann::json big = nlohmann::json::array();
    for (int i = 0; i < 10000; ++i) big.push_back(i);
    const std::string e = jsonExcerpt(big, 40);
    EXPECT_EQ(e.size(), 40u);
    EXPECT_EQ(e.substr(37), "...");
    EXPECT_EQ(jsonExcerpt(nlohmann::json("ab")), "\"ab\"");
}

TEST(JsonRead, readFileRefusesNonRegularAndLarge) {
    const std::string dir = test::tempDir();
    try {
        readFile("/dev/zero");
        FAIL() << "/dev/zero was read";
    } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()),
                  "cannot read /dev/zero: not a regular file (a character device)");
    }
    ASSERT_EQ(mkfifo((dir + "/fifo").c_str(), 0600), 0);
    const auto t0 = std::chrono::steady_clock::now();  // no writer: must not block
    EXPECT_THROW(readFile(dir + "/fifo"), std::runtime_error);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
    EXPECT_THROW(readFile(dir), std::runtime_error);
    std::ofstream(dir + "/f.json") << "[1,2,3]";
    EXPECT_EQ(readFile(dir + "/f.json", 7), "[1,2,3]");
    try {
        loadJsonFile(dir + "/f.json", 6);
        FAIL() << "a 7-byte file passed a 6-byte limit";
    } catch (const JsonReadError& e) {
        EXPECT_TRUE(contains(e.what(), "7 bytes, more than the 6-byte limit")) << e.what();
    }
    EXPECT_EQ(loadJsonFile(dir + "/f.json", 7).size(), 3u);
}
