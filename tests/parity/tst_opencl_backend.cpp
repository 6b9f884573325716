// The OpenCL backend beyond op parity: device enumeration, device-id errors, build failures
// surfacing the compiler's log (NNWB_KERNEL_DIR), the program binary cache (hits, corrupt and
// unloadable entries, disabling), profiling, allocation limits, zeroed allocations, transfer
// bounds and run-to-run determinism of the reductions.
#include <QtTest/QtTest>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <cctype>
#include <fstream>

#include "common/TestUtil.h"
#include "compute/OpenClBackend.h"
#include "compute/OpenClProgramCache.h"

using namespace nnwb;
using namespace nnwb::test;

namespace {

bool contains(const std::string& s, const std::string& what) {
    return s.find(what) != std::string::npos;
}
std::string lower(std::string s) {
    for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}
int countFiles(const QString& dir, const QString& pattern) {
    return int(QDir(dir).entryList({pattern}, QDir::Files).size());
}
// Programs a backend builds: one per kernel file (not common.cl), plus one per extra gemm
// tiling (gemm_tiled_32, gemm_tiled_16) the device runs.
int programCount(const OpenClBackend& be) {
    int n = 0;
    for (const auto& [name, text] : OpenClBackend::embeddedKernelSources())
        if (name != "common.cl") ++n;
    for (const auto& k : be.gemmKernels())
        if (k != "gemm_small" && k != "gemm_tiled") ++n;
    return n;
}
// Writes the embedded kernel files into dir, with `extra` appended to file `broken`.
void writeKernels(const QString& dir, const std::string& broken, const std::string& extra) {
    for (const auto& [name, text] : OpenClBackend::embeddedKernelSources()) {
        std::ofstream out(dir.toStdString() + "/" + name, std::ios::binary);
        out << text;
        if (name == broken) out << extra;
    }
}

}  // namespace

class TstOpenClBackend : public QObject {
    Q_OBJECT
private:
    std::string id_;

private slots:
    void initTestCase() {
        const auto ids = openClDeviceIds();
        if (ids.empty()) QSKIP("no OpenCL device found (install an OpenCL runtime such as PoCL)");
        id_ = ids.front();
        // These tests set the kernel and cache variables themselves.
        for (const char* v :
             {"NNWB_KERNEL_DIR", "NNWB_CACHE_DIR", "NNWB_NO_KERNEL_CACHE", "NNWB_CL_PROFILE"})
            qunsetenv(v);
    }

    void enumeration() {
        const auto devs = OpenClBackend::enumerate();
        QVERIFY(!devs.empty());
        for (const DeviceInfo& d : devs) {
            QVERIFY2(d.id.rfind("opencl:", 0) == 0, d.id.c_str());
            QVERIFY2(!d.name.empty(), d.id.c_str());
            QVERIFY2(!d.platform.empty(), d.id.c_str());
            QVERIFY2(contains(d.version, "OpenCL"), d.version.c_str());
            QVERIFY2(
                d.type == "CPU" || d.type == "GPU" || d.type == "accelerator" || d.type == "other",
                d.type.c_str());
            QVERIFY(d.computeUnits > 0);
            QVERIFY(d.globalMemory > 0);
            QVERIFY(d.maxAlloc > 0 && d.maxAlloc <= d.globalMemory);
        }
        const auto all = listDevices();
        QCOMPARE(all.front().id, std::string("cpu"));
        QCOMPARE(all.size(), devs.size() + 1);
        auto be = createBackend(id_);
        QCOMPARE(be->info().id, id_);
        QCOMPARE(be->info().name, devs.front().name);
    }

    void unknownDeviceIds() {
        for (const char* bad : {"opencl:3:0", "opencl:0:99", "opencl:x:0", "opencl:0",
                                "opencl:0:0:0", "opencl:-1:0", "opencl:"}) {
            try {
                createBackend(bad);
                QFAIL((std::string("no error for ") + bad).c_str());
            } catch (const ComputeError& e) {
                const std::string m = e.what();
                QVERIFY2(contains(m, std::string("no OpenCL device '") + bad + "'"), m.c_str());
                QVERIFY2(contains(m, "devices: " + id_), m.c_str());
            }
        }
    }

    // A syntax error in one kernel file fails creation with the file, the device name and the
    // compiler's build log in the message (through NNWB_KERNEL_DIR and through the option).
    void buildErrorCarriesLog() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        writeKernels(dir.path(), "softmax.cl", "\nint nnwb_deliberate_error = ;\n");
        const std::string device = createBackend(id_)->info().name;
        for (bool viaEnv : {true, false}) {
            OpenClOptions opt;
            opt.noCache = true;
            if (viaEnv)
                qputenv("NNWB_KERNEL_DIR", dir.path().toLocal8Bit());
            else
                opt.kernelDir = dir.path().toStdString();
            try {
                OpenClBackend::create(id_, opt);
                qunsetenv("NNWB_KERNEL_DIR");
                QFAIL("a broken kernel source built");
            } catch (const ComputeError& e) {
                qunsetenv("NNWB_KERNEL_DIR");
                const std::string m = e.what();
                QVERIFY2(contains(m, "softmax.cl"), m.c_str());
                QVERIFY2(contains(m, device), m.c_str());
                QVERIFY2(contains(m, "build log"), m.c_str());
                QVERIFY2(contains(m, "CL_BUILD_PROGRAM_FAILURE"), m.c_str());
                QVERIFY2(contains(lower(m.substr(m.find("build log"))), "error"), m.c_str());
            }
        }
        // The intact files from a directory build fine.
        QTemporaryDir good;
        writeKernels(good.path(), "", "");
        OpenClOptions opt;
        opt.noCache = true;
        opt.kernelDir = good.path().toStdString();
        QVERIFY(OpenClBackend::create(id_, opt) != nullptr);
        // A missing file is named.
        QFile::remove(good.path() + "/norm.cl");
        try {
            OpenClBackend::create(id_, opt);
            QFAIL("a missing kernel file was not reported");
        } catch (const ComputeError& e) {
            QVERIFY2(contains(e.what(), "norm.cl"), e.what());
        }
    }

    void binaryCache() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        OpenClOptions opt;
        opt.cacheDir = dir.path().toStdString();
        int programs = 0;
        {
            auto be = OpenClBackend::create(id_, opt);
            programs = programCount(*be);
            QCOMPARE(be->programsFromCache(), 0);
            QCOMPARE(be->programsBuilt(), programs);
        }
        QCOMPARE(countFiles(dir.path(), "*.clbin"), programs);
        QCOMPARE(countFiles(dir.path(), "*.tmp*"), 0);
        {
            auto be = OpenClBackend::create(id_, opt);
            QCOMPARE(be->programsFromCache(), programs);
            QCOMPARE(be->programsBuilt(), 0);
            smokeGemm(*be);
        }
        // Corrupt entries: garbage, a flipped payload byte, and a well-formed entry (right
        // header and checksum) holding a binary the driver cannot load. All are rebuilt.
        const QStringList files = QDir(dir.path()).entryList({"*.clbin"}, QDir::Files);
        for (int i = 0; i < files.size(); ++i) {
            const std::string path = (dir.path() + "/" + files[i]).toStdString();
            std::ifstream in(path, std::ios::binary);
            std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                    std::istreambuf_iterator<char>());
            in.close();
            QVERIFY(bytes.size() > 40);
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
            QCOMPARE(be->programsFromCache(), 0);
            QCOMPARE(be->programsBuilt(), programs);
            smokeGemm(*be);
        }
        {
            auto be = OpenClBackend::create(id_, opt);  // the rebuilt entries load again
            QCOMPARE(be->programsFromCache(), programs);
        }
        // An unwritable cache directory never fails the backend.
        OpenClOptions bad;
        bad.cacheDir = "/proc/nnwb-no-such-dir/kernels";
        QVERIFY(OpenClBackend::create(id_, bad) != nullptr);
        // Disabled by the environment.
        QTemporaryDir off;
        qputenv("NNWB_NO_KERNEL_CACHE", "1");
        qputenv("NNWB_CACHE_DIR", off.path().toLocal8Bit());
        {
            auto be = OpenClBackend::create(id_);
            QCOMPARE(be->programsFromCache(), 0);
        }
        qunsetenv("NNWB_NO_KERNEL_CACHE");
        QCOMPARE(countFiles(off.path(), "*"), 0);
        {
            auto be = OpenClBackend::create(id_);  // NNWB_CACHE_DIR alone: cached there
            Q_UNUSED(be);
        }
        qunsetenv("NNWB_CACHE_DIR");
        QCOMPARE(countFiles(off.path(), "*.clbin"), programs);
    }

    // Kernels timed per name when profiling is on.
    void profiling() {
        OpenClOptions opt;
        opt.profiling = true;
        auto be = OpenClBackend::create(id_, opt);
        QVERIFY(be->profiling());
        smokeGemm(*be);
        Buffer x = be->alloc(100);
        be->fill({x, 100, 1.0f});
        be->synchronize();
        auto times = be->kernelTimes();
        auto has = [&](const std::string& n) {
            for (const auto& [name, ms] : times)
                if (name == n) return ms >= 0.0;
            return false;
        };
        QVERIFY(has("gemm_small") || has("gemm_tiled"));
        QVERIFY(has("fill_f32"));
        be->resetKernelTimes();
        QVERIFY(be->kernelTimes().empty());
        auto plain = OpenClBackend::create(id_);
        if (!plain->profiling()) {
            smokeGemm(*plain);
            QVERIFY(plain->kernelTimes().empty());
        }
        QVERIFY(!be->gemmConfig().empty());
    }

    void allocation() {
        auto be = createBackend(id_);
        const DeviceInfo info = be->info();
        try {
            be->alloc(size_t(info.maxAlloc / sizeof(float)) + 1);
            QFAIL("an allocation past CL_DEVICE_MAX_MEM_ALLOC_SIZE succeeded");
        } catch (const ComputeError& e) {
            const std::string m = e.what();
            QVERIFY2(contains(m, "CL_DEVICE_MAX_MEM_ALLOC_SIZE"), m.c_str());
            QVERIFY2(contains(m, std::to_string(info.maxAlloc)), m.c_str());
        }
        Buffer z = be->alloc(0);
        QCOMPARE(z.size(), size_t(0));
        QVERIFY(!z.empty());
        Buffer b = be->alloc(1001);
        std::vector<float> v(1001, 1.0f);
        be->download(b, v.data(), v.size());
        for (float f : v) QCOMPARE(f, 0.0f);  // zeroed like the CPU backend's buffers
        // Transfers with offsets, and their bounds.
        const std::vector<float> src = randomVector(10, 7);
        be->upload(BufRef(b, 991), src.data(), 10);
        std::vector<float> back(10);
        be->download(BufRef(b, 991), back.data(), 10);
        QVERIFY(back == src);
        QVERIFY_THROWS_EXCEPTION(ComputeError, be->upload(BufRef(b, 992), src.data(), 10));
        QVERIFY_THROWS_EXCEPTION(ComputeError, be->download(BufRef(b, 992), back.data(), 10));
        b.reset();  // release frees the cl_mem
        QVERIFY(b.empty());
    }

    // Reductions use no atomics: the same inputs give bit-identical results run to run.
    // Kernels: bias_gradient, softmax_forward, norm_forward, lightconv_tap_grad, gemm_tiled
    void determinism() {
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
        QCOMPARE(a.size(), b.size());
        QVERIFY(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
    }

private:
    static void smokeGemm(Backend& be) {
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
        QCOMPARE(cv[0], 4.0f);  // [1 2 3] . [1 0 1]
        QCOMPARE(cv[1], 5.0f);  // [1 2 3] . [0 1 1]
        QCOMPARE(cv[2], 10.0f);
        QCOMPARE(cv[3], 11.0f);
    }
};

QTEST_GUILESS_MAIN(TstOpenClBackend)
#include "tst_opencl_backend.moc"
