// Internals of OpenClBackend shared by its source files (OpenClBackend.cpp: creation, program
// building, buffers; OpenClOps.cpp: the ops): the Impl state (context, queue, kernels, scratch,
// profiling), argument checks and launch helpers. Not part of the public interface; used only
// on the thread that owns the backend.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "compute/EnqueueFaults.h"
#include "compute/OpenClBackend.h"
#include "compute/OpenClDevices.h"
#include "compute/OpenClError.h"
#include "compute/OpenClHandles.h"
#include "compute/OpenClProgramCache.h"

namespace nnwb {

namespace cldetail {

inline constexpr const char* kCommonFile = "common.cl";
// Uploads of this many bytes or more are blocking writes (OpenClBackend::upload).
inline constexpr size_t kBlockingUploadBytes = size_t(1) << 20;
// The fused block's helpers: prepended (after common.cl) to every kernel file whose name starts
// with kBlockFilePrefix (attention_block.cl, attention_block_split.cl), not a program itself.
inline constexpr const char* kBlockHelpersFile = "attention_block_helpers.cl";
inline constexpr const char* kBlockFilePrefix = "attention_block";
inline constexpr const char* kGemmFile = "gemm.cl";
inline constexpr const char* kGemmRegFile = "gemm_reg.cl";
inline constexpr const char* kGemmLongKFile = "gemm_longk.cl";
// The TF32 tensor-core probe (matmul precision `high`), built on its own, on NVIDIA only.
inline constexpr const char* kTf32ProbeFile = "tf32_probe.cl";

// Every kernel the host launches, null-terminated (defined in OpenClOps.cpp beside the ops
// that launch them); creation fails if one is missing from the sources.
extern const char* const kRequiredKernels[];

// Gemm tilings from the largest to the smallest; the first one the device can run is used.
struct GemmConfig {
    int tsm, tsn, tsk, wptm, wptn;
    int pad = 0;  // LPAD: floats added to each local row (against bank conflicts of the loads)
    size_t threadsM() const { return size_t(tsm / wptm); }
    size_t threadsN() const { return size_t(tsn / wptn); }
    size_t threads() const { return threadsM() * threadsN(); }
    size_t localBytes() const { return size_t(tsm + tsn + 2 * pad) * tsk * sizeof(float); }
    std::string regKernelName() const {  // a gemm_reg.cl build of this tiling
        return "gemm_reg_" + std::to_string(tsm) + "x" + std::to_string(tsn) + "_" +
               std::to_string(tsk) + "_" + std::to_string(wptm) + "x" + std::to_string(wptn);
    }
    std::string tf32KernelName() const {  // a TF32 gemm_reg.cl build of this tiling
        return "gemm_tf32_" + std::to_string(tsm) + "x" + std::to_string(tsn) + "_" +
               std::to_string(tsk);
    }
    std::string defines() const {
        std::ostringstream s;
        s << "-DTSM=" << tsm << " -DTSN=" << tsn << " -DTSK=" << tsk << " -DWPTM=" << wptm
          << " -DWPTN=" << wptn << " -DLPAD=" << pad;
        return s.str();
    }
};
inline constexpr GemmConfig kGemmConfigs[] = {
    {64, 64, 32, 4, 4, 4},  // 256 work-items, local rows padded by 4
    {32, 32, 16, 4, 4},     // 64
    {16, 16, 8, 4, 4},      // 16
    {4, 4, 4, 4, 4},        // 1
};
// Smaller tilings built besides the main one (kernel gemm_tiled_<TSM>), for products with too
// few 64 x 64 tiles to fill the device; skipped where they do not fit. (128 x 128 with 8 x 8
// results and 128 x 64 with 8 x 4 read as float4 measured slower on transformer-64 on an H200
// than the main tiling, as did K steps of 8 and 16 there: see the README's Performance.)
inline constexpr GemmConfig kGemmExtraConfigs[] = {
    {32, 32, 16, 2, 2},  // 256 work-items
    {16, 16, 16, 1, 1},  // 256
};

// Register-tiled gemm kernels for large products (kernels/gemm_reg.cl: float4 tiles, two local
// buffers), built besides the above where they fit, kernel
// gemm_reg_<TSM>x<TSN>_<TSK>_<WPTM>x<WPTN>; docs/decisions/gemm-reg.md has the measurements behind
// the list.
inline constexpr GemmConfig kGemmRegConfigs[] = {
    {128, 128, 8, 8, 8, 4},  // 256 work-items
    {128, 64, 16, 8, 4, 4},  // 256
    {64, 64, 32, 4, 4, 4},   // 256
};

// The small-output, long-K gemm (kernels/gemm_longk.cl, kernel gemm_longk): 16 x 16 tiles of C,
// 2 x 4 results a work-item, 8 lanes over K (TSK here: 8 x 4 x 8 = 256 work-items), split K
// reduced in the same launch; chosen where gemm_tiled would split K or use 16 x 16 tiles
// (pickGemm).
inline constexpr GemmConfig kGemmLongKConfig = {16, 16, 8, 2, 4};

// TF32 tensor-core builds of gemm_reg.cl (matmul precision `high`; kernels/gemm_reg.cl's TF32
// notes): 256 work-items as 8 warps, K steps of 16, local rows padded by 8 floats (the fragment
// reads of a warp then fall in 32 different banks).
inline constexpr GemmConfig kGemmTf32Configs[] = {
    {128, 128, 16, 8, 8, 8},  // a warp: 32 x 64, 2 x 8 fragments
    {128, 64, 16, 8, 4, 8},   // 32 x 32
    {64, 64, 16, 4, 4, 8},    // 16 x 32
};

// The shortest K a TF32 kernel runs (shorter products stay FP32 at precision high too): on the
// H200 the TF32 kernels took twice the FP32 ones' time at K = 64, the same at K = 256 and
// 14-24 % less at K = 768 and 16,384 (docs/decisions/tf32.md).
inline constexpr int kTf32MinK = 512;

// A built tiled gemm kernel and its tiling.
struct GemmVariant {
    std::string kernel;
    GemmConfig config;
    bool reg = false;    // a gemm_reg.cl kernel
    bool tf32 = false;   // a TF32 build of it (used only at matmul precision high)
    bool longk = false;  // gemm_longk (tsk is its lanes: threads() * tsk work-items)
};

struct LocalMem {
    size_t bytes;
};

struct KernelEntry {
    ClKernel kernel;
    std::string name;
    size_t maxWg = 1;
    size_t staticLocal = 0;  // bytes of local memory the kernel uses besides its arguments
};

inline size_t floorPow2(size_t v) {
    size_t p = 1;
    while (p * 2 <= v) p *= 2;
    return p;
}
inline size_t ceilPow2(size_t v) {
    size_t p = 1;
    while (p < v) p *= 2;
    return p;
}
inline size_t roundUp(size_t v, size_t m) {
    return (v + m - 1) / m * m;
}

inline std::string envStr(const char* name) {
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

inline std::string readFile(const std::string& path, bool& ok) {
    std::ifstream in(path, std::ios::binary);
    ok = bool(in);
    if (!ok) return {};
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

inline std::string bytesText(uint64_t b) {
    std::ostringstream s;
    s << b << " bytes";
    if (b >= (uint64_t(1) << 20)) s << " (" << (b >> 20) << " MiB)";
    return s.str();
}

}  // namespace cldetail

struct OpenClBackend::Impl {
    OpenClBackend* self = nullptr;
    ClDeviceRef ref;
    DeviceInfo info;
    std::string driverVersion;
    ClContext context;
    ClQueue queue;
    std::vector<ClProgram> programs;
    std::unordered_map<std::string, cldetail::KernelEntry> kernels;
    size_t deviceMaxWg = 1;
    size_t maxItemSizes[3] = {1, 1, 1};
    cl_ulong localMemSize = 0;
    uint64_t allocated = 0;  // bytes held by live buffers of this backend
    // Bytes allocated since the queue was last waited for (alloc), and the waits so far
    // (clFinish and blocking transfers: OpenClBackend::hostWaits).
    uint64_t unfinishedBytes = 0;
    uint64_t hostWaits = 0;
    // Copies of the uploads not yet known to have run (upload does not wait): freed once the
    // queue was waited for (queueWaited), which in the in-order queue means they ran.
    std::vector<std::vector<float>> pendingUploads;
    uint64_t pendingUploadBytes = 0;
    void queueWaited() {
        pendingUploads.clear();
        pendingUploadBytes = 0;
        unfinishedBytes = 0;
    }
    cldetail::GemmConfig gemm = cldetail::kGemmConfigs[0];
    std::vector<cldetail::GemmVariant> gemmVariants;  // largest tile first
    std::vector<cldetail::GemmConfig> regConfigs;     // gemm_reg tilings to build
    std::string forcedGemm;                           // OpenClOptions::gemmKernel
    // gemm_longk (pickGemm): 2 for products gemm_tiled would run with K split or on 16 x 16
    // tiles; A/B runs (NNWB_GEMM_LONGK): 0 not built, 1 (split) only for the split ones.
    int longK = 2;
    int forcedSplits = 0;        // OpenClOptions::gemmSplits
    bool fusedAttention = true;  // off: OpenClOptions::composedAttention
    int fused = 1;         // OpenClOptions::fused: 0 off, 1 auto, 2 on (wherever the kernels fit)
    int maxHeadGroup = 0;  // OpenClOptions::blockHeadGroup
    int blockLocalWanted = 0;     // OpenClOptions::blockLocalSize (0: 256)
    int blockSpreadWanted = 0;    // OpenClOptions::blockSpread (0: the shape rule)
    int blockSplit = 2;           // OpenClOptions::blockSplit: 0 never, 1 always, 2 auto
    size_t blockLocalMemory = 0;  // OpenClOptions::blockLocalMemory (bytes, 0: the device's)
    // Matmul precision high (compute/OpenClTf32.cpp): the gemm_reg source and defines kept for
    // building its TF32 kernels when first asked; tf32Usable: 0 not probed yet, 1 the device
    // runs them (probe passed, or OpenClOptions::tf32Emulate), -1 not; tf32: products use them.
    std::string gemmRegSource, gemmRegDefines, tf32ProbeSource;
    int tf32Usable = 0;
    bool tf32Emulate = false, tf32Built = false, tf32 = false;
    int tf32MinK = cldetail::kTf32MinK;  // A/B runs: NNWB_TF32_MIN_K
    OpenClProgramCache cache;
    int fromCache = 0, built = 0;
    // Scratch buffer for overlapping copies and the lightConv tap gradient (in-order queue).
    ClMem scratch;
    size_t scratchCount = 0;
    EnqueueFaults faults;  // test-only: NNWB_CL_FAIL_AFTER
    // Under oclgrind (platform "Oclgrind"): its uninitialized-value check ties a buffer's
    // shadow to the extent of the first buffer at that address (kept after a release) and of
    // the last host write, and then misreads zero-filled values as uninitialized. So there no
    // buffer is released before the backend (no address is reused), and an upload of part of a
    // buffer goes through a whole staging buffer and a copy kernel (docs/decisions/
    // population.md, "oclgrind"). Results are the same either way.
    bool checker = false;
    std::vector<ClMem> retired;
    // Profiling.
    bool profiling = false;
    struct PendingEvent {
        const std::string* name;
        ClEvent ev;
        int product;  // index into products, or -1
    };
    std::vector<PendingEvent> pending;
    std::map<std::string, std::pair<double, uint64_t>> times;  // ms, launches
    // Profiling: device time per gemm product (shape, kernel, splits), its split-K reduction
    // included; the next enqueue() counts towards nextProduct.
    struct ProductTime {
        std::string label;
        double gflop = 0;  // per product
        double ms = 0;
        uint64_t products = 0;
    };
    std::vector<ProductTime> products;
    std::map<std::string, int> productIndex;
    int nextProduct = -1;
    void profileProduct(const std::string& label, double gflop) {
        if (!profiling) return;
        auto [it, added] = productIndex.emplace(label, int(products.size()));
        if (added) products.push_back({label, gflop});
        nextProduct = it->second;
        ++products[size_t(nextProduct)].products;
    }

    // ---- program building ----
    ClProgram buildProgram(const std::string& file, const std::string& source,
                           const std::string& options);
    void createKernels(cl_program program);
    std::string programOptions(const std::string& file) const;
    // create's options and NNWB_* overrides (OpenClBackend.cpp; throws ComputeError on bad ones).
    void applyOptions(const OpenClOptions& opt);
    void loadPrograms(const std::vector<std::pair<std::string, std::string>>& sources);
    void loadGemmReg(const std::string& source, const std::string& defines);
    void addGemmVariant(const std::string& file, const std::string& source,
                        const std::string& defines, const cldetail::GemmConfig& c,
                        const std::string& kname, bool reg, bool tf32 = false, bool longk = false);
    void sortGemmVariants();
    bool probeTf32();  // compute/OpenClTf32.cpp
    void loadGemmTf32();

    // ---- transfers' argument check (the ops are checked by Backend's entries) ----
    void check(BufRef r, size_t n, const char* op) const { OpCheck(self, op).buf(r, n, "buffer"); }
    static cl_mem mem(BufRef r) { return static_cast<cl_mem>(r.buf->handle()); }
    static cl_ulong off(BufRef r) { return cl_ulong(r.offset); }

    // ---- launching ----
    cldetail::KernelEntry& kernel(const char* name) {
        auto it = kernels.find(name);
        if (it == kernels.end())
            throw ComputeError(std::string("OpenCL kernel '") + name + "' is not loaded");
        return it->second;
    }
    template <typename T>
    void setArg(cldetail::KernelEntry& k, cl_uint i, const T& v) {
        static_assert(
            std::is_same_v<T, cl_mem> || std::is_same_v<T, cl_int> || std::is_same_v<T, cl_float> ||
                std::is_same_v<T, cl_ulong> || std::is_same_v<T, cl_ulong8> ||
                std::is_same_v<T, cldetail::LocalMem>,
            "kernel arguments must be cl_mem, cl_int, cl_float, cl_ulong(8) or cldetail::LocalMem");
        cl_int err;
        if constexpr (std::is_same_v<T, cldetail::LocalMem>)
            err = clSetKernelArg(k.kernel.get(), i, v.bytes, nullptr);
        else
            err = clSetKernelArg(k.kernel.get(), i, sizeof(T), &v);
        if (err != CL_SUCCESS)
            throw ComputeError("kernel " + k.name + ": clSetKernelArg(" + std::to_string(i) +
                               ") failed (" + clErrorName(err) + ")");
    }
    template <typename... A>
    void setArgs(cldetail::KernelEntry& k, const A&... a) {
        cl_uint i = 0;
        (setArg(k, i++, a), ...);
    }
    void enqueue(const std::string& op, cldetail::KernelEntry& k, cl_uint dims,
                 const size_t* global, const size_t* local) {
        cl_event ev = nullptr;
        cl_int err = faults.next();
        if (err == CL_SUCCESS && failNextPartWay) {  // tests: failNextLaunchPartWay
            failNextPartWay = false;
            fillCounters(1);
            err = CL_OUT_OF_RESOURCES;
        }
        if (err == CL_SUCCESS)
            err = clEnqueueNDRangeKernel(queue.get(), k.kernel.get(), dims, nullptr, global, local,
                                         0, nullptr, profiling ? &ev : nullptr);
        if (err != CL_SUCCESS) {
            countersDirty = true;  // a launch that stopped part-way may have counted
            throw ComputeError(op + ": launching kernel " + k.name + " failed (" +
                               clErrorName(err) + ")" + faults.note());
        }
        if (profiling) {
            pending.push_back({&k.name, ClEvent(ev), nextProduct});
            if (pending.size() >= 4096) drainEvents();
        }
    }
    // Work-group size for 1-D element-wise kernels.
    size_t elemLocal(const cldetail::KernelEntry& k) const {
        return std::max<size_t>(1, std::min({size_t(256), k.maxWg, deviceMaxWg, maxItemSizes[0]}));
    }
    // 1-D grid-stride launch over n elements (n > 0).
    template <typename... A>
    void launch1d(const std::string& op, const char* name, size_t n, const A&... a) {
        cldetail::KernelEntry& k = kernel(name);
        setArgs(k, a...);
        const size_t local = elemLocal(k);
        const size_t global = cldetail::roundUp(std::min(n, local * 65536), local);
        enqueue(op, k, 1, &global, &local);
    }
    // Largest power-of-two work-group size a row-reduction kernel may use.
    size_t rowCap(const cldetail::KernelEntry& k) const {
        return cldetail::floorPow2(
            std::max<size_t>(1, std::min({size_t(256), k.maxWg, deviceMaxWg, maxItemSizes[0]})));
    }
    // One work-group per row (rows > 0); the local size is a power of two fitted to `cols`,
    // so results depend only on the device and the sizes (deterministic). The scratch
    // argument (`scratchFloatsPerItem` floats per work-item) is appended last.
    template <typename... A>
    void launchRows(const std::string& op, const char* name, size_t rows, size_t cols,
                    size_t scratchFloatsPerItem, const A&... a) {
        cldetail::KernelEntry& k = kernel(name);
        const size_t local = std::min(cldetail::ceilPow2(std::max<size_t>(1, cols)), rowCap(k));
        setArgs(k, a..., cldetail::LocalMem{local * scratchFloatsPerItem * sizeof(float)});
        const size_t global = rows * local;
        enqueue(op, k, 1, &global, &local);
    }

    // Row kernels with teams (kernels/norm.cl): a team of the power of two at or above cols
    // (up to the work-group size) per row, work-groups of rowCap(k) work-items holding several
    // short rows; the team size is the argument before the local scratch.
    template <typename... A>
    void launchTeams(const std::string& op, const char* name, size_t rows, size_t cols,
                     size_t scratchFloatsPerItem, const A&... a) {
        cldetail::KernelEntry& k = kernel(name);
        const size_t local = rowCap(k);
        const size_t team = std::min(cldetail::ceilPow2(std::max<size_t>(1, cols)), local);
        const size_t perGroup = local / team;
        setArgs(k, a..., cl_int(team),
                cldetail::LocalMem{local * scratchFloatsPerItem * sizeof(float)});
        const size_t global = (rows + perGroup - 1) / perGroup * local;
        enqueue(op, k, 1, &global, &local);
    }

    // The fused attention block's work-group size (OpenClOps.cpp).
    size_t blockLocalSize();
    // Heads per group of the fused block kernels (0: they do not fit this device).
    int blockHeadGroup(const AttentionBlockShape& s, size_t lsz) const;
    // Floats of local memory the block kernels may use (the device's less their static ones).
    size_t blockLocalBudget() const;
    // Work-groups per sample of attention_block_backward (1 or more) and its heads per group.
    int blockSpread(const AttentionBlockShape& s, size_t lsz, int& headGroup) const;
    // Whether the whole-block kernels (kernels/attention_block.cl) may run the block: they fit
    // and, with fused auto, its shape rule.
    bool blockWholeUsed(const AttentionBlockShape& s);
    // Whether the block runs split (kernels/attention_block_split.cl): blockSplit, where the
    // split kernels fit (and, auto, where the whole-block kernels do not run).
    bool blockSplitUsed(const AttentionBlockShape& s);

    void drainEvents() {
        for (auto& p : pending) {
            cl_event e = p.ev.get();
            if (clWaitForEvents(1, &e) != CL_SUCCESS) continue;
            auto& t = times[*p.name];
            ++t.second;
            cl_ulong t0 = 0, t1 = 0;
            if (clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof t0, &t0, nullptr) ==
                    CL_SUCCESS &&
                clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof t1, &t1, nullptr) ==
                    CL_SUCCESS &&
                t1 >= t0) {
                t.first += double(t1 - t0) * 1e-6;
                if (p.product >= 0) products[size_t(p.product)].ms += double(t1 - t0) * 1e-6;
            }
        }
        pending.clear();
    }

    // The scratch buffer holds at least kMinScratch floats (created with the backend), so
    // small ops never reallocate it. oclgrind's uninitialized-value check keeps a freed
    // buffer's size for a later buffer that reuses its address and then misreads everything
    // past that size as uninitialized; a scratch made first and rarely regrown avoids that.
    static constexpr size_t kMinScratch = size_t(1) << 16;
    cl_mem ensureScratch(size_t count, const std::string& op) {
        count = std::max<size_t>(count, kMinScratch);
        if (scratchCount < count) {
            // The larger buffer is created before the old one is released (no address reuse).
            cl_int err = CL_SUCCESS;
            cl_mem m = clCreateBuffer(context.get(), CL_MEM_READ_WRITE, count * sizeof(float),
                                      nullptr, &err);
            if (err != CL_SUCCESS)
                throw ComputeError(op + ": scratch buffer of " +
                                   cldetail::bytesText(count * sizeof(float)) + " failed (" +
                                   clErrorName(err) + ")");
            scratch.reset(m);
            scratchCount = count;
            // oclgrind counts an atomic store (gemm_longk's partial sums) as a use of the value
            // it replaces: there the scratch starts as zeros.
            if (checker) {
                const std::vector<float> zeros(count, 0.0f);
                clCheck(clEnqueueWriteBuffer(queue.get(), m, CL_TRUE, 0, count * sizeof(float),
                                             zeros.data(), 0, nullptr, nullptr),
                        op, "clEnqueueWriteBuffer(scratch)");
            }
        }
        return scratch.get();
    }

    // The counters of gemm_longk (one int per (batch, tile) of a split product) and of the fused
    // block's spread backward (one per sample): at least `count`, all 0 (each launch sets the
    // ones it counted back to 0). Grown like the scratch buffer. After a failed launch
    // (countersDirty) they are set to 0 again before their next use: a launch that stopped
    // part-way leaves counts that would make the next one reduce before every group arrived.
    ClMem gemmCounters;
    size_t gemmCounterCount = 0;
    bool countersDirty = false;
    bool failNextPartWay = false;  // OpenClBackend::failNextLaunchPartWay
    void fillCounters(cl_int value) {
        if (!gemmCounters) return;
        const std::vector<cl_int> v(gemmCounterCount, value);
        clCheck(
            clEnqueueWriteBuffer(queue.get(), gemmCounters.get(), CL_TRUE, 0,
                                 gemmCounterCount * sizeof(cl_int), v.data(), 0, nullptr, nullptr),
            "gemm", "clEnqueueWriteBuffer(counters)");
    }
    cl_mem ensureGemmCounters(size_t count) {
        if (countersDirty) {
            fillCounters(0);
            countersDirty = false;
        }
        if (gemmCounterCount < count) {
            count = std::max(count, std::max<size_t>(4096, 2 * gemmCounterCount));
            cl_int err = CL_SUCCESS;
            cl_mem m = clCreateBuffer(context.get(), CL_MEM_READ_WRITE, count * sizeof(cl_int),
                                      nullptr, &err);
            if (err != CL_SUCCESS)
                throw ComputeError("gemm: counter buffer of " +
                                   cldetail::bytesText(count * sizeof(cl_int)) + " failed (" +
                                   clErrorName(err) + ")");
            ClMem fresh(m);
            const std::vector<cl_int> zeros(count, 0);
            clCheck(clEnqueueWriteBuffer(queue.get(), m, CL_TRUE, 0, count * sizeof(cl_int),
                                         zeros.data(), 0, nullptr, nullptr),
                    "gemm", "clEnqueueWriteBuffer(counters)");
            if (checker && gemmCounters) retired.push_back(std::move(gemmCounters));
            gemmCounters = std::move(fresh);
            gemmCounterCount = count;
        }
        return gemmCounters.get();
    }

    // Element-wise copy of n floats between (mem, offset) pairs.
    void copyRaw(const std::string& op, cl_mem src, cl_ulong so, cl_mem dst, cl_ulong dO,
                 size_t n) {
        launch1d(op, "copy_f32", n, src, so, dst, dO, cl_ulong(n));
    }
};

namespace cldetail {
// The fused attention block's kernels, work-group size and local memory (OpenClOps.cpp).
inline constexpr const char* kBlockKernels[] = {"attention_block_forward",
                                                "attention_block_backward"};
// Local floats of each kernel without its staging area (the layouts in the kernels' comments).
size_t blockForwardFloats(const AttentionBlockShape& s, size_t lsz, int headGroup);
size_t blockBackwardFloats(const AttentionBlockShape& s, size_t lsz, int headGroup, int spread = 1);
// Floats of each kernel's staging area (the largest product's weights or activation rows).
size_t blockForwardStaging(const AttentionBlockShape& s);
size_t blockBackwardStaging(const AttentionBlockShape& s, int headGroup);
// The split block's kernels (kernels/attention_block_split.cl) in launch order, and the local
// floats of each (index into kBlockSplitKernels; the layouts in the kernels' comments).
inline constexpr const char* kBlockSplitKernels[] = {
    "attention_block_split_fwd_heads", "attention_block_split_fwd_rows",
    "attention_block_split_bwd_rows", "attention_block_split_bwd_heads"};
size_t blockSplitFloats(const AttentionBlockShape& s, size_t lsz, int kernel);
// "0", "1" or "auto" (empty: auto) as Impl::blockSplit; throws ComputeError naming `what`.
int parseBlockSplit(const std::string& mode, const std::string& what);
}  // namespace cldetail

}  // namespace nnwb
