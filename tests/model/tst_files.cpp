// Experiment JSON and safetensors weights: round trips, corrupt and truncated files with clear
// errors, and atomic saves that leave the old file when the save fails.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include "common/FifoReader.h"
#include "common/ParamName.h"
#include "common/TestUtil.h"
#include "compute/CpuBackend.h"
#include "model/AtomicFile.h"
#include "model/Experiment.h"
#include "model/NetworkWeights.h"

using namespace nnwb;
using json = nlohmann::json;

namespace {
Experiment sample() {
    Experiment e;
    e.name = "round trip";
    e.data = {{"source", "synthetic"}, {"samples", 64}, {"units", 2}, {"window", 3}};
    e.model = {{"layers",
                {{{"type", "conv"}, {"window", 3}, {"step", 3}, {"filters", 4}},
                 {{"type", "dense"}, {"neurons", 3}, {"activation", "none"}}}}};
    e.training.optimizer.type = "sgd";
    e.training.optimizer.learningRate = 0.05;
    e.training.loss = LossKind::CrossEntropy;
    e.training.batchSize = 7;
    e.training.epochs = 3;
    e.training.seed = 1234;
    e.view = {{"heatmapHead", 2}};
    return e;
}
bool contains(const std::string& s, const char* part) {
    return s.find(part) != std::string::npos;
}
void writeText(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}
// sample()'s network on the CPU (input 2x3, built for batches of 2) with the weights of seed 1,
// and those weights.
struct SampleNetwork {
    Experiment e = sample();
    CpuBackend be;
    Network net;
    TensorMap before;
    SampleNetwork() : net(Network::layersFromJson(e.model), Shape{2, 3}) {
        net.build(be, 2);
        net.initWeights(1);
        before = readWeights(net);
    }
};
}  // namespace

TEST(Files, experimentRoundTrip) {
    const std::string dir = test::tempDir();
    const Experiment e = sample();
    e.save(dir + "/e.json");
    const Experiment back = Experiment::load(dir + "/e.json");
    ASSERT_EQ(back.toJson(), e.toJson());
    ASSERT_EQ(back.baseDir, dir);
    ASSERT_EQ(back.toJson()["formatVersion"].get<int>(), Experiment::kFormatVersion);
}
struct ExperimentErrorCase {
    const char* tag;
    const char* text;
    const char* expected;
};

class ExperimentErrors : public ::testing::TestWithParam<ExperimentErrorCase> {};

TEST_P(ExperimentErrors, experimentErrors) {
    const std::string text = GetParam().text, expected = GetParam().expected;
    const std::string path = test::tempDir() + "/bad.json";
    writeText(path, text);
    try {
        Experiment::load(path);
        FAIL() << "expected an ExperimentError";
    } catch (const ExperimentError& err) {
        const std::string msg = err.what();
        ASSERT_TRUE(msg.find(expected) != std::string::npos && msg.rfind(path, 0) == 0)
            << err.what();
    }
}

INSTANTIATE_TEST_SUITE_P(
    Files, ExperimentErrors,
    ::testing::Values(
        ExperimentErrorCase{"truncated", R"({"formatVersion": 1, "model": {"layers": [)",
                            "not valid JSON"},
        ExperimentErrorCase{"empty", "", "not valid JSON"},
        ExperimentErrorCase{"no version", R"({"model": {"layers": []}})", "formatVersion"},
        ExperimentErrorCase{"future", R"({"formatVersion": 99, "model": {"layers": []}})",
                            "formatVersion: 99 is not supported"},
        ExperimentErrorCase{
            "bad epochs",
            R"({"formatVersion":1,"model":{"layers":[{"type":"dense"}]},"training":{"epochs":0}})",
            "training.epochs"},
        ExperimentErrorCase{
            "bad layer",
            R"({"formatVersion":1,"model":{"layers":[{"type":"dense","neurons":-3}]}})",
            "layer 1: neurons"},
        ExperimentErrorCase{
            "bad lr",
            R"({"formatVersion":1,"model":{"layers":[{"type":"dense"}]},"training":{"optimizer":{"learningRate":"x"}}})",
            "training.optimizer.learningRate"},
        // Issue 41: a wrong type escaped as nlohmann's type_error (exit 1), 1e999 as its
        // out_of_range, 100 000 levels of nesting crashed.
        ExperimentErrorCase{
            "source type",
            R"({"formatVersion":1,"data":{"source":7},"model":{"layers":[{"type":"dense"}]}})",
            "data.source: must be \"file\" or \"synthetic\", not 7"},
        ExperimentErrorCase{"overflow",
                            "{\"formatVersion\":1,\n\"model\":{\"layers\":[{\"type\":\"dense\","
                            "\"neurons\":1e999}]}}",
                            ":2:46: number overflow (1e999 is beyond a double)"},
        ExperimentErrorCase{
            "deep",
            R"({"formatVersion":1,"view":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]})",
            ":1:90: nested deeper than 64 levels"}),
    [](const ::testing::TestParamInfo<ExperimentErrorCase>& info) {
        return test::paramName(info.param.tag);
    });

TEST(Files, missingExperiment) {
    ASSERT_THROW(Experiment::load("/nonexistent/e.json"), ExperimentError);
}
TEST(Files, weightsRoundTrip) {
    const Experiment e = sample();
    CpuBackend be;
    Network a(Network::layersFromJson(e.model), Shape{2, 3});
    a.build(be, 2);
    a.initWeights(1);
    const std::string path = test::tempDir() + "/w.safetensors";
    saveWeightsFile(a, path);
    Network b(Network::layersFromJson(e.model), Shape{2, 3});
    b.build(be, 2);
    b.initWeights(2);
    loadWeightsFile(b, path);
    const auto wa = readWeights(a), wb = readWeights(b);
    for (const auto& [name, t] : wa) ASSERT_EQ(wb.at(name).values, t.values);
    // The header is plain JSON with readable names, after an 8-byte length.
    const std::string bytes = readFile(path);
    uint64_t len = 0;
    memcpy(&len, bytes.data(), 8);
    const auto header = json::parse(bytes.substr(8, len));
    ASSERT_TRUE(header.contains("layers.0.weight"));
    ASSERT_EQ(header["layers.0.weight"]["shape"], json({4, 3}));
    ASSERT_EQ(header["layers.1.bias"]["dtype"], json("F32"));
}
TEST(Files, corruptWeights) {
    SampleNetwork s;
    Network& a = s.net;
    const TensorMap& before = s.before;
    const std::string dir = test::tempDir();
    const std::string good = encodeSafetensors(before);
    auto expectFailure = [&](const std::string& bytes, const char* needle) {
        writeText(dir + "/bad.safetensors", bytes);
        try {
            loadWeightsFile(a, dir + "/bad.safetensors");
            FAIL() << "expected an error";
        } catch (const std::exception& ex) {
            ASSERT_TRUE(contains(ex.what(), needle)) << ex.what();
        }
        // Nothing was half-loaded.
        for (const auto& [name, t] : readWeights(a)) ASSERT_EQ(t.values, before.at(name).values);
    };
    expectFailure(good.substr(0, good.size() - 5), "truncated");
    expectFailure(good.substr(0, 5), "truncated");
    expectFailure(std::string(8, '\xff') + "{}", "truncated");
    std::string badJson = good;
    badJson[9] = '#';
    expectFailure(badJson, "not valid JSON");
    TensorMap wrong = before;
    wrong["layers.0.weight"].shape = {3, 4};
    expectFailure(encodeSafetensors(wrong), "has shape [3,4], the network needs [4,3]");
    TensorMap missing = before;
    missing.erase("layers.1.bias");
    expectFailure(encodeSafetensors(missing), "no tensor layers.1.bias");
}
// Found by fuzz_safetensors: dimensions whose product wraps around to 0 passed as an empty
// tensor with a 2^64-element shape.
TEST(Files, weightShapeOverflow) {
    const std::string header =
        R"({"t":{"dtype":"F32","shape":[1099511627776,16777216],"data_offsets":[0,0]}})";
    std::string bytes(8, '\0');
    const uint64_t len = header.size();
    std::memcpy(bytes.data(), &len, 8);
    bytes += header;
    try {
        decodeSafetensors(bytes);
        FAIL() << "a shape of 2^64 values was accepted";
    } catch (const SafetensorsError& e) {
        ASSERT_TRUE(contains(e.what(), "too large")) << e.what();
    }
}
// Found by a hostile pass (issue 41): every tensor at offset 0, which safetensors forbids, and
// NaN or infinite weights loaded without a word.
TEST(Files, overlappingOrNonFiniteWeightsAreRefused) {
    SampleNetwork s;
    Network& a = s.net;
    const TensorMap& before = s.before;
    const std::string dir = test::tempDir();
    auto refusal = [&](const std::string& bytes) {
        writeText(dir + "/bad.safetensors", bytes);
        try {
            loadWeightsFile(a, dir + "/bad.safetensors");
        } catch (const std::exception& ex) {
            for (const auto& [name, t] : readWeights(a))
                EXPECT_EQ(t.values, before.at(name).values);
            return std::string(ex.what());
        }
        return std::string("accepted");
    };
    // Every tensor's data_offsets moved to start at 0.
    const std::string good = encodeSafetensors(before);
    uint64_t len = 0;
    std::memcpy(&len, good.data(), 8);
    json header = json::parse(good.substr(8, len));
    for (auto& [name, t] : header.items()) {
        const uint64_t size =
            t["data_offsets"][1].get<uint64_t>() - t["data_offsets"][0].get<uint64_t>();
        t["data_offsets"] = {0, size};
    }
    const std::string h = header.dump();
    std::string overlapped(8, '\0');
    const uint64_t hlen = h.size();
    std::memcpy(overlapped.data(), &hlen, 8);
    overlapped += h + good.substr(8 + len);
    const std::string overlap = refusal(overlapped);
    EXPECT_TRUE(contains(overlap, "overlaps tensor")) << overlap;
    EXPECT_TRUE(contains(overlap, "bad.safetensors")) << overlap;
    for (const float v : {std::nanf(""), -INFINITY}) {
        TensorMap t = before;
        t["layers.1.weight"].values[5] = v;
        const std::string why = refusal(encodeSafetensors(t));
        EXPECT_TRUE(contains(why, "tensor layers.1.weight: value 5 is")) << why;
        EXPECT_TRUE(contains(why, std::isnan(v) ? "NaN" : "infinite")) << why;
    }
    // A training checkpoint is decoded as it is (its values are not weights to use).
    TensorMap t = before;
    t["layers.1.weight"].values[0] = std::nanf("");
    EXPECT_NO_THROW(decodeSafetensors(encodeSafetensors(t)));
}
TEST(Files, atomicSaveKeepsOldFile) {
    if (geteuid() == 0) {
        // root ignores directory permissions; use a path whose parent is a file instead.
        const std::string dir = test::tempDir();
        writeText(dir + "/file", "x");
        ASSERT_THROW(writeFileAtomic(dir + "/file/e.json", "{}"), std::runtime_error);
    }
    const std::string dir = test::tempDir();
    const std::string path = dir + "/e.json";
    sample().save(path);
    const std::string before = readFile(path);
    chmod(dir.c_str(), 0555);
    bool threw = false;
    try {
        Experiment other = sample();
        other.name = "changed";
        other.save(path);
    } catch (const std::runtime_error& ex) {
        threw = true;
        ASSERT_TRUE(contains(ex.what(), "cannot save")) << ex.what();
    }
    chmod(dir.c_str(), 0755);
    if (geteuid() != 0) {
        ASSERT_TRUE(threw);
    }
    if (threw) {
        ASSERT_EQ(readFile(path), before);
    }
}
// A save to a symlink updates the file it points to and keeps the link (before: the link was
// replaced by a regular file).
TEST(Files, saveThroughSymlinkKeepsLink) {
    const std::string dir = test::tempDir();
    writeText(dir + "/real.json", "old");
    ASSERT_EQ(symlink("real.json", (dir + "/link.json").c_str()), 0);
    writeFileAtomic(dir + "/link.json", "new");
    struct stat st {};
    ASSERT_EQ(lstat((dir + "/link.json").c_str(), &st), 0);
    EXPECT_TRUE(S_ISLNK(st.st_mode));
    EXPECT_EQ(readFile(dir + "/real.json"), "new");
    // A dangling link: its target is created, the link kept.
    ASSERT_EQ(symlink("made.json", (dir + "/dangling.json").c_str()), 0);
    writeFileAtomic(dir + "/dangling.json", "made");
    EXPECT_EQ(readFile(dir + "/made.json"), "made");
    ASSERT_EQ(lstat((dir + "/dangling.json").c_str(), &st), 0);
    EXPECT_TRUE(S_ISLNK(st.st_mode));
    // The file keeps its permissions.
    ASSERT_EQ(chmod((dir + "/real.json").c_str(), 0600), 0);
    writeFileAtomic(dir + "/real.json", "again");
    ASSERT_EQ(stat((dir + "/real.json").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
}
// A character device is written in place and stays one (before: replaced by a regular file,
// as /dev/null was). mknod needs root (CI runs as root).
TEST(Files, saveToCharacterDeviceKeepsIt) {
    if (geteuid() != 0) GTEST_SKIP() << "mknod of a character device needs root";
    const std::string dir = test::tempDir(), dev = dir + "/null";
    ASSERT_EQ(mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, 3)), 0) << std::strerror(errno);
    writeFileAtomic(dev, std::string(100000, 'x'));
    struct stat st {};
    ASSERT_EQ(stat(dev.c_str(), &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode));
    EXPECT_EQ(st.st_rdev, makedev(1, 3));
    for (const auto& e : std::filesystem::directory_iterator(dir))
        EXPECT_EQ(e.path().filename(), "null") << "stray " << e.path();
}
// A FIFO is written in place: a reader on the other end gets the bytes, the FIFO stays.
TEST(Files, saveToFifoWritesThrough) {
    const std::string dir = test::tempDir(), fifo = dir + "/pipe";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    // Held open (read and write) so that neither end waits: the reader reads to the end once
    // this and the save's descriptor are closed, also when a save replaced the FIFO.
    const int held = ::open(fifo.c_str(), O_RDWR);
    ASSERT_GE(held, 0);
    // The reading end is opened here, before the save, and read on a thread (a picture may be
    // more than the pipe holds).
    test::FifoReader reader(fifo);  // does not wait: `held` is a writer
    writeFileAtomic(fifo, "through the pipe");
    ::close(held);
    EXPECT_EQ(reader.wait(), "through the pipe");
    struct stat st {};
    ASSERT_EQ(lstat(fifo.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

// A safetensors header nested 100,000 deep (a hostile model file) is refused by the
// depth-bounded reader at its 65th level, with the position, before anything walks it.
TEST(Files, deeplyNestedSafetensorsHeaderIsRefused) {
    const std::string header = std::string(100000, '[') + std::string(100000, ']');
    std::string bytes(8, '\0');
    const uint64_t len = header.size();
    std::memcpy(&bytes[0], &len, 8);
    bytes += header;
    try {
        decodeSafetensors(bytes);
        FAIL() << "accepted";
    } catch (const SafetensorsError& e) {
        EXPECT_NE(std::string(e.what()).find("1:65: nested deeper than 64 levels"),
                  std::string::npos)
            << e.what();
    }
}
