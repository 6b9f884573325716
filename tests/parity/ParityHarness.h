// Parity harness for the OpenCL-vs-CPU op suites: runs the same op on the CpuBackend
// reference and on every OpenCL device, with every buffer guarded by sentinel values, and
// reports the first mismatching output, overwritten guard or modified input; ParitySuite is the
// GoogleTest fixture that opens the devices for a suite. Main thread only.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/TestUtil.h"
#include "compute/BackendRegistry.h"
#include "compute/CpuBackend.h"

namespace nnwb::test {

// Cases larger than parityMaxValues() (TestUtil.h) are skipped and counted here.
inline size_t& paritySkipped() {
    static size_t n = 0;
    return n;
}

// One run of an op on one backend: the op declares its inputs and outputs through in()/out().
class OpRun {
public:
    explicit OpRun(Backend& backend) : be(backend) {}
    Backend& be;

    // An input: checked unchanged after the op.
    BufRef in(const std::string& name, const std::vector<float>& data) {
        entries_.push_back({name, data, false, std::make_unique<GuardedBuffer>(be, data)});
        return entries_.back().buf->ref();
    }
    // An output (or in-out) with its initial content: compared between the backends.
    BufRef out(const std::string& name, const std::vector<float>& init) {
        entries_.push_back({name, init, true, std::make_unique<GuardedBuffer>(be, init)});
        return entries_.back().buf->ref();
    }

    // Scratch the op may use as it likes: only its guards are checked.
    BufRef scratch(const std::string& name, size_t n) {
        entries_.push_back({name, std::vector<float>(n, 0.0f), false,
                            std::make_unique<GuardedBuffer>(be, std::vector<float>(n, 0.0f)),
                            true});
        return entries_.back().buf->ref();
    }

    // Reads back every buffer; fills outputs and problems.
    void finish() {
        be.synchronize();
        for (auto& e : entries_) {
            const std::string g = e.buf->guardViolation(e.name);
            if (!g.empty()) problems += g + "; ";
            std::vector<float> now = e.buf->read();
            if (e.isOutput)
                outputs.emplace_back(e.name, std::move(now));
            else if (!e.isScratch && !now.empty() &&  // memcmp must not see null data()
                     std::memcmp(now.data(), e.init.data(), now.size() * sizeof(float)) != 0)
                problems += "input " + e.name + " was modified; ";
        }
    }

    // Floats in all buffers the op declared (without the guards).
    size_t values() const {
        size_t n = 0;
        for (const auto& e : entries_) n += e.init.size();
        return n;
    }

    std::vector<std::pair<std::string, std::vector<float>>> outputs;
    std::string problems;

private:
    struct Entry {
        std::string name;
        std::vector<float> init;
        bool isOutput;
        std::unique_ptr<GuardedBuffer> buf;
        bool isScratch = false;
    };
    std::vector<Entry> entries_;
};

using OpFn = std::function<void(OpRun&)>;

// Per-output tolerance override: name -> tolerance (others use the default).
struct ParityTolerance {
    Tolerance def;
    std::vector<std::pair<std::string, Tolerance>> perOutput;
    Tolerance of(const std::string& name) const {
        for (const auto& [n, t] : perOutput)
            if (n == name) return t;
        return def;
    }
};

// The reference and the OpenCL backends under test, opened for each suite (ParitySuite).
// Under a checking device (oclgrind: NNWB_PARITY_MAX_VALUES set) the backends from turnsFrom on
// (a suite's forced variants of one device) take turns: each case runs on those before it and on
// the next one of the rest. oclgrind interprets every work-item at -O0, so a 128x128 tile costs
// seconds even for a 1x1 product: every forced gemm kernel on every case took 970 s of CI.
struct ParityDevices {
    CpuBackend cpu;
    std::vector<std::pair<std::string, std::unique_ptr<Backend>>> cl;
    size_t turnsFrom = size_t(-1);
    size_t turn = 0;
};

inline ParityDevices& parityDevices() {
    static ParityDevices d;
    return d;
}

// Opens every OpenCL device; empty string on success, else the error. Call from SetUpTestSuite
// (NNWB_PARITY_INIT).
inline std::string openParityDevices() {
    ParityDevices& d = parityDevices();
    if (!d.cl.empty()) return {};
    for (const std::string& id : openClDeviceIds()) {
        try {
            d.cl.emplace_back(id, createBackend(id));
        } catch (const std::exception& e) {
            return id + ": " + e.what();
        }
    }
    return {};
}

// Releases the OpenCL backends before static destruction (drivers may be gone by then), and
// says on stderr how many cases of the suite NNWB_PARITY_MAX_VALUES left out. Call from
// TearDownTestSuite.
inline void closeParityDevices() {
    parityDevices().cl.clear();
    parityDevices().turnsFrom = size_t(-1);
    parityDevices().turn = 0;
    if (paritySkipped() > 0)
        std::fprintf(
            stderr,
            "%zu case(s) larger than NNWB_PARITY_MAX_VALUES=%zu values (or with K > 64 under "
            "it) were skipped\n",
            paritySkipped(), parityMaxValues());
    paritySkipped() = 0;
}

// Why the parity tests skip on this machine (no OpenCL device); empty when they can run.
inline std::string parityUnavailable() {
    if (!openClDeviceIds().empty()) return {};
    return "no OpenCL device found (install an OpenCL runtime such as PoCL to run the parity "
           "tests)";
}

// Why the tests of a parity suite skip (set by NNWB_PARITY_INIT); empty when they run.
inline std::string& paritySkipReason() {
    static std::string reason;
    return reason;
}

// Whether the OpenCL devices run under a checking device (oclgrind: NNWB_PARITY_MAX_VALUES is
// set, TestUtil.h), where the suites run fewer and smaller cases.
inline bool parityCheckingDevice() {
    return parityMaxValues() != size_t(-1);
}

// Under a checking device a product's K beyond 64 only runs more K tiles of the same kernel
// code, each a whole work-group of interpreted work-items (50 s for one 1x1x130 case split on
// oclgrind): such cases are left out there and counted as skipped. K up to 64 still gives every
// kernel several K tiles, a partial one and split K.
inline bool parityCheckingSkipsK(int k) {
    if (!parityCheckingDevice() || k <= 64) return false;
    ++paritySkipped();
    return true;
}

// The indices of the OpenCL backends the next case runs on: every one, or under a checking
// device those before turnsFrom and the next of the rest in turn (ParityDevices).
inline std::vector<size_t> parityCaseDevices() {
    ParityDevices& d = parityDevices();
    const size_t n = d.cl.size(), from = std::min(d.turnsFrom, n);
    std::vector<size_t> out;
    for (size_t i = 0; i < n; ++i)
        if (i < from || !parityCheckingDevice()) out.push_back(i);
    if (from < n && parityCheckingDevice()) out.push_back(from + d.turn++ % (n - from));
    return out;
}

// Runs `op` on the CPU reference and on `dev`; empty string when they agree.
inline std::string runParity(const std::string& devId, Backend& dev, const OpFn& op,
                             const ParityTolerance& tol, const std::string& context) {
    OpRun ref(parityDevices().cpu), got(dev);
    try {
        op(ref);
        ref.finish();
    } catch (const std::exception& e) {
        return context + " [cpu]: " + e.what();
    }
    if (ref.values() > parityMaxValues()) {
        ++paritySkipped();
        return {};
    }
    try {
        op(got);
        got.finish();
    } catch (const std::exception& e) {
        return context + " [" + devId + "]: " + e.what();
    }
    if (!ref.problems.empty()) return context + " [cpu]: " + ref.problems;
    if (!got.problems.empty()) return context + " [" + devId + "]: " + got.problems;
    for (size_t i = 0; i < ref.outputs.size(); ++i) {
        const auto& [name, want] = ref.outputs[i];
        const std::string m = compareNear(got.outputs[i].second, want, tol.of(name));
        if (!m.empty()) return context + " [" + devId + "] output " + name + ": " + m;
    }
    return {};
}

}  // namespace nnwb::test

// Compares `op` on every OpenCL device against the CPU reference; fails the test (a fatal
// failure: returns from the enclosing function) with the first difference. Cases outside
// NNWB_PARITY_SLICE (TestUtil.h) are left out.
#define NNWB_PARITY(op, tol, context)                                                    \
    do {                                                                                 \
        if (!nnwb::test::parityNextCaseInSlice()) break;                                 \
        for (size_t i_ : nnwb::test::parityCaseDevices()) {                              \
            auto& dev_ = nnwb::test::parityDevices().cl[i_];                             \
            const std::string m_ =                                                       \
                nnwb::test::runParity(dev_.first, *dev_.second, (op), (tol), (context)); \
            ASSERT_TRUE(m_.empty()) << m_;                                               \
        }                                                                                \
    } while (0)

// SetUpTestSuite body: without OpenCL devices every test of the suite skips (ParitySuite::SetUp:
// GoogleTest 1.12 runs the tests after a GTEST_SKIP in SetUpTestSuite), fails if one cannot be
// opened (a fatal failure there skips the suite's tests and fails the program).
#define NNWB_PARITY_INIT()                                                \
    do {                                                                  \
        nnwb::test::paritySkipReason() = nnwb::test::parityUnavailable(); \
        if (!nnwb::test::paritySkipReason().empty()) break;               \
        const std::string e_ = nnwb::test::openParityDevices();           \
        ASSERT_TRUE(e_.empty()) << e_;                                    \
    } while (0)

namespace nnwb::test {

// The fixture of a parity suite: opens the OpenCL devices once for the suite and releases them
// after it; every test skips on a machine without an OpenCL device.
class ParitySuite : public ::testing::Test {
public:
    static void SetUpTestSuite() { NNWB_PARITY_INIT(); }
    static void TearDownTestSuite() { closeParityDevices(); }

protected:
    // For a suite that also runs each OpenCL device as a second variant (from its
    // SetUpTestSuite, after ParitySuite's): make(id) for every OpenCL device id, named
    // "ID SUFFIX"; none when the suite is skipped or its devices failed to open.
    template <class Make>
    static auto openClVariants(const std::string& suffix, Make make) {
        std::vector<std::pair<std::string, decltype(make(std::string()))>> out;
        if (HasFatalFailure() || !paritySkipReason().empty()) return out;
        for (const std::string& id : openClDeviceIds())
            out.emplace_back(id + " " + suffix, make(id));
        return out;
    }
    void SetUp() override {
        if (!paritySkipReason().empty()) GTEST_SKIP() << paritySkipReason();
    }
};

}  // namespace nnwb::test
