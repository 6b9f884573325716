// The OpenCL backend beyond op parity: device enumeration, device-id errors, build failures
// surfacing the compiler's log (NNWB_KERNEL_DIR), the program binary cache (hits, corrupt and
// unloadable entries, disabling), profiling, allocation limits, zeroed allocations, transfer
// bounds, allocations that do not wait for the queue and run-to-run determinism of the
// reductions.
#include <fnmatch.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/TestUtil.h"
#include "compute/BackendRegistry.h"
#include "compute/OpenClBackend.h"
#include "compute/OpenClProgramCache.h"

using namespace nnwb;
using namespace nnwb::test;
namespace fs = std::filesystem;

namespace {

bool contains(const std::string& s, const std::string& what) {
    return s.find(what) != std::string::npos;
}
std::string lower(std::string s) {
    for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// A fresh directory (common/TestUtil.h's tempDir), removed with everything in it at the end of the
// scope.
struct ScopedTempDir {
    const std::string path = tempDir();
    ScopedTempDir() = default;
    ScopedTempDir(const ScopedTempDir&) = delete;
    ScopedTempDir& operator=(const ScopedTempDir&) = delete;
    ~ScopedTempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

// The names of the regular files in dir matching the shell pattern, sorted; a leading dot must
// be matched explicitly, so "*" leaves hidden files out (as the QDir listing of the Qt version
// did).
std::vector<std::string> listFiles(const std::string& dir, const std::string& pattern) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) {
        const std::string name = e.path().filename().string();
        if (e.is_regular_file() && fnmatch(pattern.c_str(), name.c_str(), FNM_PERIOD) == 0)
            names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    return names;
}
int countFiles(const std::string& dir, const std::string& pattern) {
    return int(listFiles(dir, pattern).size());
}

// Programs a backend builds: one per kernel file (not common.cl and attention_block_helpers.cl,
// which are prepended to others, not gemm_reg.cl), plus one per extra gemm tiling
// (gemm_tiled_32, gemm_tiled_16, gemm_reg_*) the device runs.
int programCount(const OpenClBackend& be) {
    int n = 0;
    for (const auto& [name, text] : OpenClBackend::embeddedKernelSources())
        // tf32_probe.cl is built only when matmul precision high is asked for; gemm_reg.cl's and
        // gemm_longk.cl's programs are counted as gemm kernels below.
        if (name != "common.cl" && name != "attention_block_helpers.cl" && name != "gemm_reg.cl" &&
            name != "gemm_longk.cl" && name != "tf32_probe.cl")
            ++n;
    for (const auto& k : be.gemmKernels())
        if (k != "gemm_small" && k != "gemm_tiled") ++n;
    return n;
}
// Writes the embedded kernel files into dir, with `extra` appended to file `broken`.
void writeKernels(const std::string& dir, const std::string& broken, const std::string& extra) {
    for (const auto& [name, text] : OpenClBackend::embeddedKernelSources()) {
        std::ofstream out(dir + "/" + name, std::ios::binary);
        out << text;
        if (name == broken) out << extra;
    }
}

// A 2 x 3 times 3 x 2 product on the backend, checked by hand.
void smokeGemm(Backend& be) {
    Buffer a = be.alloc(6), b = be.alloc(6), c = be.alloc(4);
    const float av[] = {1, 2, 3, 4, 5, 6}, bv[] = {1, 0, 0, 1, 1, 1};
    be.upload(a, av, 6);
    be.upload(b, bv, 6);
    GemmArgs g;
    g.m = 2;
    g.n = 2;
    g.k = 3;
    g.a = a;
    g.b = b;
    g.c = c;
    g.lda = 3;
    g.ldb = 2;
    g.ldc = 2;
    be.gemm(g);
    float cv[4];
    be.download(c, cv, 4);
    ASSERT_FLOAT_EQ(cv[0], 4.0f);  // [1 2 3] . [1 0 1]
    ASSERT_FLOAT_EQ(cv[1], 5.0f);  // [1 2 3] . [0 1 1]
    ASSERT_FLOAT_EQ(cv[2], 10.0f);
    ASSERT_FLOAT_EQ(cv[3], 11.0f);
}

}  // namespace

// The first OpenCL device; every test skips without one.
class OpenclBackend : public ::testing::Test {
public:
    static void SetUpTestSuite() {
        const auto ids = openClDeviceIds();
        if (ids.empty()) return;
        id_ = ids.front();
        // These tests set the kernel and cache variables themselves.
        for (const char* v :
             {"NNWB_KERNEL_DIR", "NNWB_CACHE_DIR", "NNWB_NO_KERNEL_CACHE", "NNWB_CL_PROFILE"})
            unsetenv(v);
    }

protected:
    void SetUp() override {
        if (id_.empty())
            GTEST_SKIP() << "no OpenCL device found (install an OpenCL runtime such as PoCL)";
    }
    static std::string id_;
};
std::string OpenclBackend::id_;

TEST_F(OpenclBackend, enumeration) {
    const auto devs = OpenClBackend::enumerate();
    ASSERT_TRUE(!devs.empty());
    for (const DeviceInfo& d : devs) {
        ASSERT_TRUE(d.id.rfind("opencl:", 0) == 0) << d.id;
        ASSERT_TRUE(!d.name.empty()) << d.id;
        ASSERT_TRUE(!d.platform.empty()) << d.id;
        ASSERT_TRUE(contains(d.version, "OpenCL")) << d.version;
        ASSERT_TRUE(d.type == "CPU" || d.type == "GPU" || d.type == "accelerator" ||
                    d.type == "other")
            << d.type;
        ASSERT_TRUE(d.computeUnits > 0);
        ASSERT_TRUE(d.globalMemory > 0);
        ASSERT_TRUE(d.maxAlloc > 0 && d.maxAlloc <= d.globalMemory);
    }
    const auto all = listDevices();
    ASSERT_EQ(all.front().id, std::string("cpu"));
    ASSERT_EQ(all.size(), devs.size() + 1);
    auto be = createBackend(id_);
    ASSERT_EQ(be->info().id, id_);
    ASSERT_EQ(be->info().name, devs.front().name);
}

TEST_F(OpenclBackend, unknownDeviceIds) {
    for (const char* bad : {"opencl:3:0", "opencl:0:99", "opencl:x:0", "opencl:0", "opencl:0:0:0",
                            "opencl:-1:0", "opencl:"}) {
        try {
            createBackend(bad);
            FAIL() << std::string("no error for ") << bad;
        } catch (const ComputeError& e) {
            const std::string m = e.what();
            ASSERT_TRUE(contains(m, std::string("no OpenCL device '") + bad + "'")) << m;
            ASSERT_TRUE(contains(m, "devices: " + id_)) << m;
        }
    }
}

// Bad options and NNWB_* overrides fail creation before any kernel is built, naming the option
// or variable and the value (OpenClBackend::Impl::applyOptions).
TEST_F(OpenclBackend, badOptionsNameTheVariable) {
    auto errorOf = [&](const OpenClOptions& opt) -> std::string {
        try {
            OpenClBackend::create(id_, opt);
        } catch (const ComputeError& e) {
            return e.what();
        }
        return "no error";
    };
    OpenClOptions sideways;
    sideways.fused = "sideways";
    std::string m = errorOf(sideways);
    EXPECT_TRUE(contains(m, "fused mode 'sideways'") && contains(m, "NNWB_FUSED")) << m;
    OpenClOptions split;
    split.blockSplit = "always";
    m = errorOf(split);
    EXPECT_TRUE(contains(m, "OpenClOptions::blockSplit 'always' is not 0, 1 or auto")) << m;
    const struct {
        const char* var;
        const char* value;
        const char* says;
    } bad[] = {{"NNWB_FUSED", "2", "fused mode '2'"},
               {"NNWB_TF32_MIN_K", "12x", "NNWB_TF32_MIN_K '12x' is not a whole number"},
               {"NNWB_CL_BLOCK_LOCAL", "100", "NNWB_CL_BLOCK_LOCAL '100' is not a power of two"},
               {"NNWB_CL_BLOCK_SPREAD", "-1", "NNWB_CL_BLOCK_SPREAD '-1' is not a positive"},
               {"NNWB_CL_BLOCK_SPLIT", "yes", "NNWB_CL_BLOCK_SPLIT 'yes' is not 0, 1 or auto"},
               {"NNWB_CL_BLOCK_SPLIT", "2", "NNWB_CL_BLOCK_SPLIT '2' is not 0, 1 or auto"},
               {"NNWB_CL_BLOCK_LOCAL_MEM", "48k",
                "NNWB_CL_BLOCK_LOCAL_MEM '48k' is not a positive number of bytes"}};
    for (const auto& b : bad) {
        setenv(b.var, b.value, 1);
        m = errorOf(OpenClOptions{});
        unsetenv(b.var);
        EXPECT_TRUE(contains(m, b.says)) << b.var << ": " << m;
    }
}

// A syntax error in one kernel file fails creation with the file, the device name and the
// compiler's build log in the message (through NNWB_KERNEL_DIR and through the option).
TEST_F(OpenclBackend, buildErrorCarriesLog) {
    ScopedTempDir dir;
    ASSERT_TRUE(fs::is_directory(dir.path));
    writeKernels(dir.path, "softmax.cl", "\nint nnwb_deliberate_error = ;\n");
    const std::string device = createBackend(id_)->info().name;
    for (bool viaEnv : {true, false}) {
        OpenClOptions opt;
        opt.noCache = true;
        if (viaEnv)
            setenv("NNWB_KERNEL_DIR", dir.path.c_str(), 1);
        else
            opt.kernelDir = dir.path;
        try {
            OpenClBackend::create(id_, opt);
            unsetenv("NNWB_KERNEL_DIR");
            FAIL() << "a broken kernel source built";
        } catch (const ComputeError& e) {
            unsetenv("NNWB_KERNEL_DIR");
            const std::string m = e.what();
            ASSERT_TRUE(contains(m, "softmax.cl")) << m;
            ASSERT_TRUE(contains(m, device)) << m;
            ASSERT_TRUE(contains(m, "build log")) << m;
            ASSERT_TRUE(contains(m, "CL_BUILD_PROGRAM_FAILURE")) << m;
            ASSERT_TRUE(contains(lower(m.substr(m.find("build log"))), "error")) << m;
        }
    }
    // The intact files from a directory build fine.
    ScopedTempDir good;
    writeKernels(good.path, "", "");
    OpenClOptions opt;
    opt.noCache = true;
    opt.kernelDir = good.path;
    ASSERT_TRUE(OpenClBackend::create(id_, opt) != nullptr);
    // A missing file is named.
    fs::remove(good.path + "/norm.cl");
    try {
        OpenClBackend::create(id_, opt);
        FAIL() << "a missing kernel file was not reported";
    } catch (const ComputeError& e) {
        ASSERT_TRUE(contains(e.what(), "norm.cl")) << e.what();
    }
}

TEST_F(OpenclBackend, binaryCache) {
    ScopedTempDir dir;
    ASSERT_TRUE(fs::is_directory(dir.path));
    OpenClOptions opt;
    opt.cacheDir = dir.path;
    int programs = 0;
    {
        auto be = OpenClBackend::create(id_, opt);
        programs = programCount(*be);
        ASSERT_EQ(be->programsFromCache(), 0);
        ASSERT_EQ(be->programsBuilt(), programs);
    }
    ASSERT_EQ(countFiles(dir.path, "*.clbin"), programs);
    ASSERT_EQ(countFiles(dir.path, "*.tmp*"), 0);
    {
        auto be = OpenClBackend::create(id_, opt);
        ASSERT_EQ(be->programsFromCache(), programs);
        ASSERT_EQ(be->programsBuilt(), 0);
        smokeGemm(*be);
    }
    // Corrupt entries: garbage, a flipped payload byte, and a well-formed entry (right
    // header and checksum) holding a binary the driver cannot load. All are rebuilt.
    const std::vector<std::string> files = listFiles(dir.path, "*.clbin");
    for (size_t i = 0; i < files.size(); ++i) {
        const std::string path = dir.path + "/" + files[i];
        std::ifstream in(path, std::ios::binary);
        std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
        in.close();
        ASSERT_TRUE(bytes.size() > 40);
        if (i % 3 == 0) {
            bytes.assign(100, 'x');
        } else if (i % 3 == 1) {
            bytes[bytes.size() / 2] ^= 0x5a;
        } else {
            std::vector<unsigned char> junk(64, 0xab);
            bytes.resize(32 + junk.size());
            const uint64_t size = junk.size(), sum = fnv1a64(junk.data(), junk.size());
            for (int b = 0; b < 8; ++b) {
                bytes[16 + b] = char(size >> (8 * b));
                bytes[24 + b] = char(sum >> (8 * b));
            }
            std::copy(junk.begin(), junk.end(), bytes.begin() + 32);
        }
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(bytes.data(), std::streamsize(bytes.size()));
    }
    {
        auto be = OpenClBackend::create(id_, opt);
        ASSERT_EQ(be->programsFromCache(), 0);
        ASSERT_EQ(be->programsBuilt(), programs);
        smokeGemm(*be);
    }
    {
        auto be = OpenClBackend::create(id_, opt);  // the rebuilt entries load again
        ASSERT_EQ(be->programsFromCache(), programs);
    }
    // An unwritable cache directory never fails the backend.
    OpenClOptions bad;
    bad.cacheDir = "/proc/nnwb-no-such-dir/kernels";
    ASSERT_TRUE(OpenClBackend::create(id_, bad) != nullptr);
    // Disabled by the environment.
    ScopedTempDir off;
    setenv("NNWB_NO_KERNEL_CACHE", "1", 1);
    setenv("NNWB_CACHE_DIR", off.path.c_str(), 1);
    {
        auto be = OpenClBackend::create(id_);
        ASSERT_EQ(be->programsFromCache(), 0);
    }
    unsetenv("NNWB_NO_KERNEL_CACHE");
    ASSERT_EQ(countFiles(off.path, "*"), 0);
    {
        auto be = OpenClBackend::create(id_);  // NNWB_CACHE_DIR alone: cached there
        (void)be;
    }
    unsetenv("NNWB_CACHE_DIR");
    ASSERT_EQ(countFiles(off.path, "*.clbin"), programs);
}

// Kernels timed and counted per name when profiling is on.
TEST_F(OpenclBackend, profiling) {
    OpenClOptions opt;
    opt.profiling = true;
    auto be = OpenClBackend::create(id_, opt);
    ASSERT_TRUE(be->profiling());
    smokeGemm(*be);
    be->synchronize();
    auto times = be->kernelTimes();
    auto launches = [&](const std::string& n) {
        for (const auto& t : times)
            if (t.name == n && t.ms >= 0.0) return t.launches;
        return uint64_t(0);
    };
    ASSERT_GE(launches("gemm_small") + launches("gemm_tiled"), 1u);
    Buffer x = be->alloc(100);  // may zero-fill with a kernel of its own
    be->resetKernelTimes();
    be->fill({x, 100, 1.0f});
    be->fill({x, 50, 2.0f});
    times = be->kernelTimes();
    ASSERT_EQ(launches("fill_f32"), 2u);
    ASSERT_EQ(times.size(), 1u);
    be->resetKernelTimes();
    ASSERT_TRUE(be->kernelTimes().empty());
    auto plain = OpenClBackend::create(id_);
    if (!plain->profiling()) {
        smokeGemm(*plain);
        ASSERT_TRUE(plain->kernelTimes().empty());
    }
    ASSERT_TRUE(!be->gemmConfig().empty());
}

TEST_F(OpenclBackend, allocation) {
    auto be = createBackend(id_);
    const DeviceInfo info = be->info();
    try {
        be->alloc(size_t(info.maxAlloc / sizeof(float)) + 1);
        FAIL() << "an allocation past CL_DEVICE_MAX_MEM_ALLOC_SIZE succeeded";
    } catch (const ComputeError& e) {
        const std::string m = e.what();
        ASSERT_TRUE(contains(m, "CL_DEVICE_MAX_MEM_ALLOC_SIZE")) << m;
        ASSERT_TRUE(contains(m, std::to_string(info.maxAlloc))) << m;
    }
    Buffer z = be->alloc(0);
    ASSERT_EQ(z.size(), size_t(0));
    ASSERT_TRUE(!z.empty());
    Buffer b = be->alloc(1001);
    std::vector<float> v(1001, 1.0f);
    be->download(b, v.data(), v.size());
    for (float f : v) ASSERT_EQ(f, 0.0f);  // zeroed like the CPU backend's buffers
    // Transfers with offsets, and their bounds.
    const std::vector<float> src = randomVector(10, 7);
    be->upload(BufRef(b, 991), src.data(), 10);
    std::vector<float> back(10);
    be->download(BufRef(b, 991), back.data(), 10);
    ASSERT_TRUE(back == src);
    ASSERT_THROW(be->upload(BufRef(b, 992), src.data(), 10), ComputeError);
    ASSERT_THROW(be->download(BufRef(b, 992), back.data(), 10), ComputeError);
    b.reset();  // release frees the cl_mem
    ASSERT_TRUE(b.empty());
}

// Issue 48 item 8: each allocation waited for the queue (clFinish after zeroing it). With a
// sweep's 8 workers time-sliced on one H200 a wait lasts until the context's turn, and a trial's
// model build (50-100 buffers) took 0.6 s. Now small allocations queue their zeroing without a
// wait (the in-order queue runs it before any later op), and the queue is finished once 64 MiB
// have been allocated since the last wait (a lazy allocation that does not fit fails there).
// The old alloc made 100 waits for the 100 buffers below.
TEST_F(OpenclBackend, smallAllocationsDoNotWaitForTheQueue) {
    auto created = OpenClBackend::create(id_);
    OpenClBackend& be = *created;
    const uint64_t before = be.hostWaits();
    std::vector<Buffer> buffers;
    for (int i = 0; i < 100; ++i) buffers.push_back(be.alloc(1000));
    ASSERT_EQ(be.hostWaits(), before);
    std::vector<float> v(1000, 1.0f);
    be.download(buffers.back(), v.data(), v.size());  // one wait: the zeroing ran before it
    ASSERT_EQ(be.hostWaits(), before + 1);
    for (float f : v) ASSERT_EQ(f, 0.0f);
    Buffer large = be.alloc(size_t(16) << 20);  // 64 MiB: waited for
    ASSERT_EQ(be.hostWaits(), before + 2);
    be.download(BufRef(large, (size_t(16) << 20) - 1000), v.data(), 1000);
    for (float f : v) ASSERT_EQ(f, 0.0f);
}

// Issue 48 item 8, the same trial build: each buffer is zeroed, then uploaded into, and a
// blocking upload waited for the zeroing before it. Uploads now copy their bytes and do not
// wait (87d053c's counter gives 100 waits for the 100 uploads below); each buffer holds what
// was uploaded although the host array changed after every upload.
TEST_F(OpenclBackend, uploadsDoNotWaitForTheQueue) {
    auto created = OpenClBackend::create(id_);
    OpenClBackend& be = *created;
    std::vector<Buffer> buffers;
    for (int i = 0; i < 100; ++i) buffers.push_back(be.alloc(1000));
    const uint64_t before = be.hostWaits();
    std::vector<float> host(1000);
    for (int i = 0; i < 100; ++i) {
        std::fill(host.begin(), host.end(), float(i));
        be.upload(buffers[size_t(i)], host.data(), host.size());
    }
    std::fill(host.begin(), host.end(), -1.0f);
    ASSERT_EQ(be.hostWaits(), before);
    for (int i = 0; i < 100; ++i) {
        be.download(buffers[size_t(i)], host.data(), host.size());
        for (float f : host) ASSERT_EQ(f, float(i)) << "buffer " << i;
    }
}

// From 1 MiB on an upload is a blocking write (a training step's batch: faster on the H200),
// below it does not wait.
TEST_F(OpenclBackend, largeUploadsAreBlocking) {
    auto created = OpenClBackend::create(id_);
    OpenClBackend& be = *created;
    const size_t big = (size_t(1) << 20) / sizeof(float);
    Buffer a = be.alloc(big), b = be.alloc(big - 1);  // whole buffers (oclgrind stages parts)
    std::vector<float> host(big);
    for (size_t i = 0; i < big; ++i) host[i] = float(i % 977);
    uint64_t before = be.hostWaits();
    be.upload(b, host.data(), big - 1);
    ASSERT_EQ(be.hostWaits(), before);
    be.upload(a, host.data(), big);
    ASSERT_EQ(be.hostWaits(), before + 1);
    std::vector<float> back(big, -1.0f);
    be.download(a, back.data(), big);
    ASSERT_EQ(back, host);
    be.download(b, back.data(), big - 1);
    ASSERT_TRUE(std::equal(host.begin(), host.end() - 1, back.begin()));
}

// Reductions use no atomics: the same inputs give bit-identical results run to run.
// Kernels: bias_gradient, softmax_forward, norm_forward, lightconv_tap_grad, gemm_tiled
TEST_F(OpenclBackend, determinism) {
    auto be = createBackend(id_);
    const int rows = 257, cols = 131;
    const size_t n = size_t(rows) * cols;
    auto run = [&]() {
        const std::vector<float> xv = randomVector(n, 500);
        Buffer x = be->alloc(n), y = be->alloc(n), r = be->alloc(rows), db = be->alloc(cols);
        be->upload(x, xv.data(), n);
        be->biasGradient({rows, cols, x, db});
        SoftmaxShape s;
        s.rows = rows;
        s.cols = cols;
        be->softmaxForward({s, x, y});
        be->normForward({rows, cols, 1e-5f, y, y, r});
        Buffer w = be->alloc(21), wsm = be->alloc(21), dw = be->alloc(21), out = be->alloc(n);
        be->fill({w, 21, 0.1f});
        be->lightConvForward({1, rows, cols, 1, 21, 20, true, x, w, wsm, out});
        be->lightConvBackward({1, rows, cols, 1, 21, 20, true, x, w, wsm, y, out, dw});
        Buffer c = be->alloc(size_t(rows) * rows);
        GemmArgs g;
        g.m = rows;
        g.n = rows;
        g.k = cols;
        g.transB = true;
        g.a = x;
        g.b = y;
        g.c = c;
        g.lda = cols;
        g.ldb = cols;
        g.ldc = rows;
        be->gemm(g);
        std::vector<float> all;
        for (const Buffer* b : {&y, &r, &db, &dw, &out, &c}) {
            std::vector<float> v(b->size());
            be->download(*b, v.data(), v.size());
            all.insert(all.end(), v.begin(), v.end());
        }
        return all;
    };
    const auto a = run(), b = run();
    ASSERT_EQ(a.size(), b.size());
    ASSERT_TRUE(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}
