#include "compute/OpenClBackend.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <type_traits>
#include <unordered_map>

#include "compute/OpenClDevices.h"
#include "compute/OpenClError.h"
#include "compute/OpenClHandles.h"
#include "compute/OpenClProgramCache.h"
#include "kernels/EmbeddedKernels.h"

namespace nnwb {

namespace {

constexpr const char* kCommonFile = "common.cl";
constexpr const char* kGemmFile = "gemm.cl";

// Every kernel the host launches; creation fails if one is missing from the sources.
constexpr const char* kRequiredKernels[] = {"fill_f32",
                                            "copy_f32",
                                            "copy2d_f32",
                                            "axpy_f32",
                                            "add_f32",
                                            "gemm_tiled",
                                            "bias_activation",
                                            "bias_softmax_rows",
                                            "activation_backward",
                                            "softmax_activation_backward",
                                            "bias_gradient",
                                            "softmax_forward",
                                            "softmax_backward",
                                            "norm_forward",
                                            "norm_backward",
                                            "unfold_windows",
                                            "fold_windows",
                                            "mse_loss",
                                            "softmax_cross_entropy",
                                            "sgd_step",
                                            "adam_step",
                                            "lightconv_taps",
                                            "lightconv_forward",
                                            "lightconv_backward_dx",
                                            "lightconv_tap_grad",
                                            "lightconv_weight_grad_apply"};

// Gemm tilings from the largest to the smallest; the first one the device can run is used.
struct GemmConfig {
    int tsm, tsn, tsk, wptm, wptn;
    size_t threadsM() const { return size_t(tsm / wptm); }
    size_t threadsN() const { return size_t(tsn / wptn); }
    size_t threads() const { return threadsM() * threadsN(); }
    size_t localBytes() const { return size_t(tsm + tsn) * tsk * sizeof(float); }
    std::string defines() const {
        std::ostringstream s;
        s << "-DTSM=" << tsm << " -DTSN=" << tsn << " -DTSK=" << tsk << " -DWPTM=" << wptm
          << " -DWPTN=" << wptn;
        return s.str();
    }
};
constexpr GemmConfig kGemmConfigs[] = {
    {64, 64, 16, 4, 4},  // 256 work-items
    {32, 32, 16, 4, 4},  // 64
    {16, 16, 8, 4, 4},   // 16
    {4, 4, 4, 4, 4},     // 1
};

struct LocalMem {
    size_t bytes;
};

struct KernelEntry {
    ClKernel kernel;
    std::string name;
    size_t maxWg = 1;
};

size_t floorPow2(size_t v) {
    size_t p = 1;
    while (p * 2 <= v) p *= 2;
    return p;
}
size_t ceilPow2(size_t v) {
    size_t p = 1;
    while (p < v) p *= 2;
    return p;
}
size_t roundUp(size_t v, size_t m) {
    return (v + m - 1) / m * m;
}

std::string envStr(const char* name) {
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

std::string readFile(const std::string& path, bool& ok) {
    std::ifstream in(path, std::ios::binary);
    ok = bool(in);
    if (!ok) return {};
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string bytesText(uint64_t b) {
    std::ostringstream s;
    s << b << " bytes";
    if (b >= (uint64_t(1) << 20)) s << " (" << (b >> 20) << " MiB)";
    return s.str();
}

}  // namespace

struct OpenClBackend::Impl {
    OpenClBackend* self = nullptr;
    ClDeviceRef ref;
    DeviceInfo info;
    std::string driverVersion;
    ClContext context;
    ClQueue queue;
    std::vector<ClProgram> programs;
    std::unordered_map<std::string, KernelEntry> kernels;
    size_t deviceMaxWg = 1;
    size_t maxItemSizes[3] = {1, 1, 1};
    cl_ulong localMemSize = 0;
    uint64_t allocated = 0;  // bytes held by live buffers of this backend
    GemmConfig gemm = kGemmConfigs[0];
    OpenClProgramCache cache;
    int fromCache = 0, built = 0;
    // Scratch buffer for overlapping copies and the lightConv tap gradient (in-order queue).
    ClMem scratch;
    size_t scratchCount = 0;
    // Profiling.
    bool profiling = false;
    std::vector<std::pair<const std::string*, ClEvent>> pending;
    std::map<std::string, double> times;

    // ---- program building ----
    ClProgram buildProgram(const std::string& file, const std::string& source,
                           const std::string& options);
    void createKernels(cl_program program);
    void loadPrograms(const std::vector<std::pair<std::string, std::string>>& sources);

    // ---- argument checks (mirroring CpuBackend) ----
    void check(BufRef r, size_t n, const std::string& op) const {
        if (r.empty()) throw ComputeError(op + ": missing buffer");
        if (r.buf->backend() != self)
            throw ComputeError(op + ": buffer belongs to another backend");
        if (r.offset + n > r.buf->size())
            throw ComputeError(op + ": access of " + std::to_string(n) + " values at offset " +
                               std::to_string(r.offset) + " overruns a buffer of " +
                               std::to_string(r.buf->size()));
    }
    static cl_mem mem(BufRef r) { return static_cast<cl_mem>(r.buf->handle()); }
    static cl_ulong off(BufRef r) { return cl_ulong(r.offset); }

    // ---- launching ----
    KernelEntry& kernel(const char* name) {
        auto it = kernels.find(name);
        if (it == kernels.end())
            throw ComputeError(std::string("OpenCL kernel '") + name + "' is not loaded");
        return it->second;
    }
    template <typename T>
    void setArg(KernelEntry& k, cl_uint i, const T& v) {
        static_assert(std::is_same_v<T, cl_mem> || std::is_same_v<T, cl_int> ||
                          std::is_same_v<T, cl_float> || std::is_same_v<T, cl_ulong> ||
                          std::is_same_v<T, LocalMem>,
                      "kernel arguments must be cl_mem, cl_int, cl_float, cl_ulong or LocalMem");
        cl_int err;
        if constexpr (std::is_same_v<T, LocalMem>)
            err = clSetKernelArg(k.kernel.get(), i, v.bytes, nullptr);
        else
            err = clSetKernelArg(k.kernel.get(), i, sizeof(T), &v);
        if (err != CL_SUCCESS)
            throw ComputeError("kernel " + k.name + ": clSetKernelArg(" + std::to_string(i) +
                               ") failed (" + clErrorName(err) + ")");
    }
    template <typename... A>
    void setArgs(KernelEntry& k, const A&... a) {
        cl_uint i = 0;
        (setArg(k, i++, a), ...);
    }
    void enqueue(const std::string& op, KernelEntry& k, cl_uint dims, const size_t* global,
                 const size_t* local) {
        cl_event ev = nullptr;
        const cl_int err =
            clEnqueueNDRangeKernel(queue.get(), k.kernel.get(), dims, nullptr, global, local, 0,
                                   nullptr, profiling ? &ev : nullptr);
        if (err != CL_SUCCESS)
            throw ComputeError(op + ": launching kernel " + k.name + " failed (" +
                               clErrorName(err) + ")");
        if (profiling) {
            pending.emplace_back(&k.name, ClEvent(ev));
            if (pending.size() >= 4096) drainEvents();
        }
    }
    // Work-group size for 1-D element-wise kernels.
    size_t elemLocal(const KernelEntry& k) const {
        return std::max<size_t>(1, std::min({size_t(256), k.maxWg, deviceMaxWg, maxItemSizes[0]}));
    }
    // 1-D grid-stride launch over n elements (n > 0).
    template <typename... A>
    void launch1d(const std::string& op, const char* name, size_t n, const A&... a) {
        KernelEntry& k = kernel(name);
        setArgs(k, a...);
        const size_t local = elemLocal(k);
        const size_t global = roundUp(std::min(n, local * 65536), local);
        enqueue(op, k, 1, &global, &local);
    }
    // Largest power-of-two work-group size a row-reduction kernel may use.
    size_t rowCap(const KernelEntry& k) const {
        return floorPow2(
            std::max<size_t>(1, std::min({size_t(256), k.maxWg, deviceMaxWg, maxItemSizes[0]})));
    }
    // One work-group per row (rows > 0); the local size is a power of two fitted to `cols`,
    // so results depend only on the device and the sizes (deterministic). The scratch
    // argument (`scratchFloatsPerItem` floats per work-item) is appended last.
    template <typename... A>
    void launchRows(const std::string& op, const char* name, size_t rows, size_t cols,
                    size_t scratchFloatsPerItem, const A&... a) {
        KernelEntry& k = kernel(name);
        const size_t local = std::min(ceilPow2(std::max<size_t>(1, cols)), rowCap(k));
        setArgs(k, a..., LocalMem{local * scratchFloatsPerItem * sizeof(float)});
        const size_t global = rows * local;
        enqueue(op, k, 1, &global, &local);
    }

    void drainEvents() {
        for (auto& [name, ev] : pending) {
            cl_event e = ev.get();
            if (clWaitForEvents(1, &e) != CL_SUCCESS) continue;
            cl_ulong t0 = 0, t1 = 0;
            if (clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof t0, &t0, nullptr) ==
                    CL_SUCCESS &&
                clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof t1, &t1, nullptr) ==
                    CL_SUCCESS &&
                t1 >= t0)
                times[*name] += double(t1 - t0) * 1e-6;
        }
        pending.clear();
    }

    cl_mem ensureScratch(size_t count, const std::string& op) {
        count = std::max<size_t>(count, 1);
        if (scratchCount < count) {
            scratch.reset();
            scratchCount = 0;
            cl_int err = CL_SUCCESS;
            cl_mem m = clCreateBuffer(context.get(), CL_MEM_READ_WRITE, count * sizeof(float),
                                      nullptr, &err);
            if (err != CL_SUCCESS)
                throw ComputeError(op + ": scratch buffer of " + bytesText(count * sizeof(float)) +
                                   " failed (" + clErrorName(err) + ")");
            scratch.reset(m);
            scratchCount = count;
        }
        return scratch.get();
    }

    // Element-wise copy of n floats between (mem, offset) pairs.
    void copyRaw(const std::string& op, cl_mem src, cl_ulong so, cl_mem dst, cl_ulong dO,
                 size_t n) {
        launch1d(op, "copy_f32", n, src, so, dst, dO, cl_ulong(n));
    }
};

// ---------------------------------------------------------------------------------------------
// Program building

ClProgram OpenClBackend::Impl::buildProgram(const std::string& file, const std::string& source,
                                            const std::string& options) {
    cl_device_id dev = ref.device;
    uint64_t key = 0;
    if (cache.enabled()) {
        key = OpenClProgramCache::key(
            source, options, info.name, driverVersion,
            info.platform + " " + clPlatformString(ref.platform, CL_PLATFORM_VERSION));
        if (auto bin = cache.load(key)) {
            const unsigned char* ptr = bin->data();
            const size_t size = bin->size();
            cl_int binStatus = CL_SUCCESS, err = CL_SUCCESS;
            ClProgram p(
                clCreateProgramWithBinary(context.get(), 1, &dev, &size, &ptr, &binStatus, &err));
            if (err == CL_SUCCESS && binStatus == CL_SUCCESS && p &&
                clBuildProgram(p.get(), 1, &dev, options.c_str(), nullptr, nullptr) == CL_SUCCESS) {
                ++fromCache;
                return p;
            }
            // An unloadable entry is ignored; the fresh build below overwrites it.
        }
    }

    const char* text = source.c_str();
    const size_t len = source.size();
    cl_int err = CL_SUCCESS;
    ClProgram p(clCreateProgramWithSource(context.get(), 1, &text, &len, &err));
    clCheck(err, "building " + file, "clCreateProgramWithSource");
    err = clBuildProgram(p.get(), 1, &dev, options.c_str(), nullptr, nullptr);
    if (err != CL_SUCCESS) {
        std::string log;
        size_t n = 0;
        if (clGetProgramBuildInfo(p.get(), dev, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n) ==
                CL_SUCCESS &&
            n > 0) {
            log.resize(n);
            if (clGetProgramBuildInfo(p.get(), dev, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr) !=
                CL_SUCCESS)
                log.clear();
            while (!log.empty() && log.back() == '\0') log.pop_back();
        }
        throw ComputeError("OpenCL program " + file + " failed to build for device '" + info.name +
                           "' (" + info.id + ", " + info.platform + "): " + clErrorName(err) +
                           "\nbuild options: " + (options.empty() ? "(none)" : options) +
                           "\nbuild log:\n" + (log.empty() ? "(empty)" : log));
    }
    ++built;

    if (cache.enabled()) {
        size_t size = 0;
        if (clGetProgramInfo(p.get(), CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) ==
                CL_SUCCESS &&
            size > 0) {
            std::vector<unsigned char> bin(size);
            unsigned char* ptr = bin.data();
            if (clGetProgramInfo(p.get(), CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr) ==
                CL_SUCCESS)
                cache.store(key, bin);  // failures only cost a rebuild next time
        }
    }
    return p;
}

void OpenClBackend::Impl::createKernels(cl_program program) {
    cl_uint count = 0;
    clCheck(clCreateKernelsInProgram(program, 0, nullptr, &count), "creating kernels",
            "clCreateKernelsInProgram");
    std::vector<cl_kernel> ks(count);
    if (count > 0)
        clCheck(clCreateKernelsInProgram(program, count, ks.data(), nullptr), "creating kernels",
                "clCreateKernelsInProgram");
    std::vector<ClKernel> owned;
    for (cl_kernel k : ks) owned.emplace_back(k);
    for (ClKernel& k : owned) {
        size_t n = 0;
        clCheck(clGetKernelInfo(k.get(), CL_KERNEL_FUNCTION_NAME, 0, nullptr, &n),
                "creating kernels", "clGetKernelInfo");
        std::string name(n, '\0');
        clCheck(clGetKernelInfo(k.get(), CL_KERNEL_FUNCTION_NAME, n, name.data(), nullptr),
                "creating kernels", "clGetKernelInfo");
        while (!name.empty() && name.back() == '\0') name.pop_back();
        size_t wg = 1;
        clCheck(clGetKernelWorkGroupInfo(k.get(), ref.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg,
                                         &wg, nullptr),
                "kernel " + name, "clGetKernelWorkGroupInfo");
        KernelEntry e;
        e.kernel = std::move(k);
        e.name = name;
        e.maxWg = std::max<size_t>(1, wg);
        kernels[name] = std::move(e);
    }
}

void OpenClBackend::Impl::loadPrograms(
    const std::vector<std::pair<std::string, std::string>>& sources) {
    std::string common;
    bool haveCommon = false;
    for (const auto& [name, text] : sources)
        if (name == kCommonFile) {
            common = text;
            haveCommon = true;
        }
    if (!haveCommon) throw ComputeError(std::string("OpenCL kernels: ") + kCommonFile + " missing");

    for (const auto& [name, text] : sources) {
        if (name == kCommonFile) continue;
        const std::string source = common + "\n#line 1\n" + text;
        if (name != kGemmFile) {
            ClProgram p = buildProgram(name, source, "");
            createKernels(p.get());
            programs.push_back(std::move(p));
            continue;
        }
        // gemm: the largest tiling that fits the device and the built kernel.
        bool done = false;
        std::string lastProblem;
        for (const GemmConfig& c : kGemmConfigs) {
            if (c.threads() > deviceMaxWg || c.threadsN() > maxItemSizes[0] ||
                c.threadsM() > maxItemSizes[1] || c.localBytes() > localMemSize)
                continue;
            ClProgram p = buildProgram(name, source, c.defines());
            createKernels(p.get());
            const auto it = kernels.find("gemm_tiled");
            if (it != kernels.end() && it->second.maxWg < c.threads()) {
                lastProblem = "gemm_tiled with " + c.defines() + " allows only " +
                              std::to_string(it->second.maxWg) + " work-items";
                kernels.erase(it);
                continue;
            }
            gemm = c;
            programs.push_back(std::move(p));
            done = true;
            break;
        }
        if (!done)
            throw ComputeError("OpenCL device '" + info.name + "' cannot run any gemm tiling" +
                               (lastProblem.empty() ? "" : ": " + lastProblem));
    }
    for (const char* k : kRequiredKernels)
        if (!kernels.count(k))
            throw ComputeError(std::string("OpenCL kernel '") + k +
                               "' not found in the kernel sources");
}

// ---------------------------------------------------------------------------------------------
// Creation and enumeration

std::vector<DeviceInfo> OpenClBackend::enumerate() {
    std::vector<DeviceInfo> out;
    try {
        for (const ClDeviceRef& r : clAllDevices()) out.push_back(clDeviceInfo(r));
    } catch (...) {
        // never throws: a broken runtime means no OpenCL devices
    }
    return out;
}

std::vector<std::pair<std::string, std::string>> OpenClBackend::embeddedKernelSources() {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& [name, text] : kernels::kEmbedded) out.emplace_back(name, text);
    return out;
}

std::unique_ptr<OpenClBackend> OpenClBackend::create(const std::string& id) {
    return create(id, OpenClOptions{});
}

std::unique_ptr<OpenClBackend> OpenClBackend::create(const std::string& id,
                                                     const OpenClOptions& opt) {
    const std::vector<ClDeviceRef> all = clAllDevices();
    int p = -1, d = -1;
    const ClDeviceRef* found = nullptr;
    if (parseClDeviceId(id, p, d))
        for (const ClDeviceRef& r : all)
            if (r.platformIndex == p && r.deviceIndex == d) found = &r;
    if (!found) {
        std::string list;
        for (const ClDeviceRef& r : all) list += (list.empty() ? "" : " ") + r.id();
        throw ComputeError("no OpenCL device '" + id +
                           "' (devices: " + (list.empty() ? "none found" : list) + ")");
    }

    auto impl = std::make_unique<Impl>();
    Impl& m = *impl;
    m.ref = *found;
    m.info = clDeviceInfo(m.ref);
    m.driverVersion = clDeviceString(m.ref.device, CL_DRIVER_VERSION);
    m.profiling = opt.profiling || envStr("NNWB_CL_PROFILE") == "1";
    const std::string where = "opening " + id + " (" + m.info.name + ")";
    clCheck(clGetDeviceInfo(m.ref.device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof m.deviceMaxWg,
                            &m.deviceMaxWg, nullptr),
            where, "clGetDeviceInfo(CL_DEVICE_MAX_WORK_GROUP_SIZE)");
    cl_uint dims = 0;
    clCheck(clGetDeviceInfo(m.ref.device, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, sizeof dims, &dims,
                            nullptr),
            where, "clGetDeviceInfo(CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS)");
    std::vector<size_t> sizes(std::max<cl_uint>(dims, 3), 1);
    clCheck(clGetDeviceInfo(m.ref.device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof(size_t) * dims,
                            sizes.data(), nullptr),
            where, "clGetDeviceInfo(CL_DEVICE_MAX_WORK_ITEM_SIZES)");
    for (int i = 0; i < 3; ++i) m.maxItemSizes[i] = std::max<size_t>(1, sizes[i]);
    clCheck(clGetDeviceInfo(m.ref.device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof m.localMemSize,
                            &m.localMemSize, nullptr),
            where, "clGetDeviceInfo(CL_DEVICE_LOCAL_MEM_SIZE)");

    cl_int err = CL_SUCCESS;
    const cl_context_properties props[] = {
        CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(m.ref.platform), 0};
    m.context.reset(clCreateContext(props, 1, &m.ref.device, nullptr, nullptr, &err));
    clCheck(err, where, "clCreateContext");
    m.queue.reset(clCreateCommandQueue(m.context.get(), m.ref.device,
                                       m.profiling ? CL_QUEUE_PROFILING_ENABLE : 0, &err));
    clCheck(err, where, "clCreateCommandQueue");

    if (opt.noCache || envStr("NNWB_NO_KERNEL_CACHE") == "1")
        m.cache = OpenClProgramCache(std::string());
    else if (!opt.cacheDir.empty())
        m.cache = OpenClProgramCache(opt.cacheDir);

    // Kernel sources: embedded, or the same files from a directory for kernel work.
    std::vector<std::pair<std::string, std::string>> sources = embeddedKernelSources();
    const std::string dir = !opt.kernelDir.empty() ? opt.kernelDir : envStr("NNWB_KERNEL_DIR");
    if (!dir.empty()) {
        for (auto& [name, text] : sources) {
            bool ok = false;
            text = readFile(dir + "/" + name, ok);
            if (!ok)
                throw ComputeError("kernel directory " + dir + " (NNWB_KERNEL_DIR): cannot read " +
                                   name);
        }
    }
    m.loadPrograms(sources);

    auto be = std::unique_ptr<OpenClBackend>(new OpenClBackend(std::move(impl)));
    return be;
}

OpenClBackend::OpenClBackend(std::unique_ptr<Impl> impl) : d_(std::move(impl)) {
    d_->self = this;
}

OpenClBackend::~OpenClBackend() {
    if (d_ && d_->queue) clFinish(d_->queue.get());
}

DeviceInfo OpenClBackend::info() const {
    return d_->info;
}

bool OpenClBackend::profiling() const {
    return d_->profiling;
}

std::vector<std::pair<std::string, double>> OpenClBackend::kernelTimes() {
    d_->drainEvents();
    std::vector<std::pair<std::string, double>> out(d_->times.begin(), d_->times.end());
    std::stable_sort(out.begin(), out.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    return out;
}

void OpenClBackend::resetKernelTimes() {
    d_->drainEvents();
    d_->times.clear();
}

int OpenClBackend::programsFromCache() const {
    return d_->fromCache;
}
int OpenClBackend::programsBuilt() const {
    return d_->built;
}
std::string OpenClBackend::gemmConfig() const {
    return d_->gemm.defines();
}

// ---------------------------------------------------------------------------------------------
// Buffers and transfers

Buffer OpenClBackend::alloc(size_t count) {
    const size_t maxCount = size_t(-1) / sizeof(float);
    const uint64_t bytes = uint64_t(std::max<size_t>(count, 1)) * sizeof(float);
    const std::string what = "alloc of " + std::to_string(count) + " floats (" + bytesText(bytes) +
                             ") on " + d_->info.name;
    if (count > maxCount || bytes > d_->info.maxAlloc)
        throw ComputeError(what + ": exceeds the device's largest single allocation of " +
                           bytesText(d_->info.maxAlloc) + " (CL_DEVICE_MAX_MEM_ALLOC_SIZE)");
    const uint64_t avail =
        d_->info.globalMemory > d_->allocated ? d_->info.globalMemory - d_->allocated : 0;
    cl_int err = CL_SUCCESS;
    ClMem m(clCreateBuffer(d_->context.get(), CL_MEM_READ_WRITE, size_t(bytes), nullptr, &err));
    if (err == CL_SUCCESS) {
        // Zero the buffer (as CpuBackend does); finishing here makes a lazy allocation fail now.
        try {
            d_->launch1d("alloc", "fill_f32", size_t(bytes / sizeof(float)), m.get(), cl_ulong(0),
                         cl_ulong(bytes / sizeof(float)), cl_float(0.0f));
        } catch (const ComputeError&) {
            err = CL_OUT_OF_RESOURCES;
        }
        if (err == CL_SUCCESS) err = clFinish(d_->queue.get());
    }
    if (err != CL_SUCCESS)
        throw ComputeError(what + " failed (" + clErrorName(err) + "); " + bytesText(avail) +
                           " of " + bytesText(d_->info.globalMemory) +
                           " global memory not held by this backend");
    d_->allocated += bytes;
    return Buffer(this, m.release(), count);
}

void OpenClBackend::release(void* handle) noexcept {
    cl_mem m = static_cast<cl_mem>(handle);
    size_t bytes = 0;
    if (clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof bytes, &bytes, nullptr) == CL_SUCCESS)
        d_->allocated -= std::min<uint64_t>(d_->allocated, bytes);
    clReleaseMemObject(m);
}

void OpenClBackend::upload(BufRef dst, const float* src, size_t count) {
    d_->check(dst, count, "upload");
    if (count == 0) return;
    clCheck(
        clEnqueueWriteBuffer(d_->queue.get(), Impl::mem(dst), CL_TRUE, dst.offset * sizeof(float),
                             count * sizeof(float), src, 0, nullptr, nullptr),
        "upload", "clEnqueueWriteBuffer");
}

void OpenClBackend::download(BufRef src, float* dst, size_t count) {
    d_->check(src, count, "download");
    if (count == 0) return;
    clCheck(
        clEnqueueReadBuffer(d_->queue.get(), Impl::mem(src), CL_TRUE, src.offset * sizeof(float),
                            count * sizeof(float), dst, 0, nullptr, nullptr),
        "download", "clEnqueueReadBuffer");
}

void OpenClBackend::synchronize() {
    clCheck(clFinish(d_->queue.get()), "synchronize", "clFinish");
}

// ---------------------------------------------------------------------------------------------
// Element-wise ops and copies

void OpenClBackend::fill(BufRef x, size_t n, float value) {
    d_->check(x, n, "fill");
    if (n == 0) return;
    d_->launch1d("fill", "fill_f32", n, Impl::mem(x), Impl::off(x), cl_ulong(n), cl_float(value));
}

void OpenClBackend::copy(BufRef src, BufRef dst, size_t n) {
    d_->check(src, n, "copy");
    d_->check(dst, n, "copy");
    if (n == 0) return;
    cl_mem s = Impl::mem(src), t = Impl::mem(dst);
    if (s == t && src.offset == dst.offset) return;
    const bool overlap = s == t && src.offset < dst.offset + n && dst.offset < src.offset + n;
    if (overlap) {  // memmove semantics through the scratch buffer
        cl_mem tmp = d_->ensureScratch(n, "copy");
        d_->copyRaw("copy", s, Impl::off(src), tmp, 0, n);
        d_->copyRaw("copy", tmp, 0, t, Impl::off(dst), n);
        return;
    }
    d_->copyRaw("copy", s, Impl::off(src), t, Impl::off(dst), n);
}

void OpenClBackend::copy2d(BufRef src, int srcLd, BufRef dst, int dstLd, int rows, int cols) {
    if (rows <= 0 || cols <= 0) return;
    const size_t extS = size_t(rows - 1) * srcLd + cols, extD = size_t(rows - 1) * dstLd + cols;
    d_->check(src, extS, "copy2d");
    d_->check(dst, extD, "copy2d");
    cl_mem s = Impl::mem(src), t = Impl::mem(dst);
    const bool overlap = s == t && src.offset < dst.offset + extD && dst.offset < src.offset + extS;
    if (overlap) {  // rows may overlap: go through a dense copy in the scratch buffer
        cl_mem tmp = d_->ensureScratch(size_t(rows) * cols, "copy2d");
        d_->launch1d("copy2d", "copy2d_f32", size_t(rows) * cols, s, Impl::off(src), cl_int(srcLd),
                     tmp, cl_ulong(0), cl_int(cols), cl_int(rows), cl_int(cols));
        d_->launch1d("copy2d", "copy2d_f32", size_t(rows) * cols, tmp, cl_ulong(0), cl_int(cols), t,
                     Impl::off(dst), cl_int(dstLd), cl_int(rows), cl_int(cols));
        return;
    }
    d_->launch1d("copy2d", "copy2d_f32", size_t(rows) * cols, s, Impl::off(src), cl_int(srcLd), t,
                 Impl::off(dst), cl_int(dstLd), cl_int(rows), cl_int(cols));
}

void OpenClBackend::axpy(size_t n, float alpha, BufRef x, BufRef y) {
    d_->check(x, n, "axpy");
    d_->check(y, n, "axpy");
    if (n == 0) return;
    d_->launch1d("axpy", "axpy_f32", n, cl_ulong(n), cl_float(alpha), Impl::mem(x), Impl::off(x),
                 Impl::mem(y), Impl::off(y));
}

void OpenClBackend::add(size_t n, BufRef a, BufRef b, BufRef out) {
    d_->check(a, n, "add");
    d_->check(b, n, "add");
    d_->check(out, n, "add");
    if (n == 0) return;
    d_->launch1d("add", "add_f32", n, cl_ulong(n), Impl::mem(a), Impl::off(a), Impl::mem(b),
                 Impl::off(b), Impl::mem(out), Impl::off(out));
}

// ---------------------------------------------------------------------------------------------
// gemm

void OpenClBackend::gemm(const GemmArgs& g) {
    const int M = g.m, N = g.n, K = g.k;
    if (M <= 0 || N <= 0 || g.batch0 <= 0 || g.batch1 <= 0) return;
    auto extent = [](bool trans, int rows, int cols, int ld) {
        int sr = trans ? cols : rows, sc = trans ? rows : cols;
        return size_t(sr - 1) * ld + sc;
    };
    const size_t lastA = size_t(g.batch0 - 1) * g.strideA0 + size_t(g.batch1 - 1) * g.strideA1;
    const size_t lastB = size_t(g.batch0 - 1) * g.strideB0 + size_t(g.batch1 - 1) * g.strideB1;
    const size_t lastC = size_t(g.batch0 - 1) * g.strideC0 + size_t(g.batch1 - 1) * g.strideC1;
    if (K > 0) {
        d_->check(g.a, lastA + extent(g.transA, M, K, g.lda), "gemm A");
        d_->check(g.b, lastB + extent(g.transB, K, N, g.ldb), "gemm B");
    }
    d_->check(g.c, lastC + extent(false, M, N, g.ldc), "gemm C");
    const int kk = std::max(K, 0);
    // With K == 0, A and B are never read; C's buffer stands in for them.
    const BufRef a = kk > 0 ? g.a : g.c, b = kk > 0 ? g.b : g.c;
    KernelEntry& k = d_->kernel("gemm_tiled");
    const GemmConfig& c = d_->gemm;
    d_->setArgs(k, cl_int(M), cl_int(N), cl_int(kk), cl_float(g.alpha), cl_float(g.beta),
                cl_int(g.transA), cl_int(g.transB), Impl::mem(a), Impl::off(a), cl_int(g.lda),
                cl_ulong(g.strideA0), cl_ulong(g.strideA1), Impl::mem(b), Impl::off(b),
                cl_int(g.ldb), cl_ulong(g.strideB0), cl_ulong(g.strideB1), Impl::mem(g.c),
                Impl::off(g.c), cl_int(g.ldc), cl_ulong(g.strideC0), cl_ulong(g.strideC1),
                cl_int(g.batch1));
    const size_t local[3] = {c.threadsN(), c.threadsM(), 1};
    const size_t global[3] = {size_t((N + c.tsn - 1) / c.tsn) * c.threadsN(),
                              size_t((M + c.tsm - 1) / c.tsm) * c.threadsM(),
                              size_t(g.batch0) * size_t(g.batch1)};
    d_->enqueue("gemm", k, 3, global, local);
}

// ---------------------------------------------------------------------------------------------
// Bias and activation

void OpenClBackend::biasActivation(int rows, int cols, BufRef x, BufRef bias, BufRef z, BufRef y,
                                   Activation act) {
    const size_t n = size_t(std::max(rows, 0)) * size_t(std::max(cols, 0));
    d_->check(x, n, "biasActivation x");
    d_->check(z, n, "biasActivation z");
    d_->check(y, n, "biasActivation y");
    const bool hasBias = !bias.empty();
    if (hasBias) d_->check(bias, size_t(std::max(cols, 0)), "biasActivation bias");
    if (rows <= 0 || cols <= 0) return;
    const BufRef bb = hasBias ? bias : x;
    if (act == Activation::Softmax) {
        d_->launchRows("biasActivation", "bias_softmax_rows", size_t(rows), size_t(cols), 1,
                       cl_int(rows), cl_int(cols), Impl::mem(x), Impl::off(x), Impl::mem(bb),
                       hasBias ? Impl::off(bb) : cl_ulong(0), cl_int(hasBias), Impl::mem(z),
                       Impl::off(z), Impl::mem(y), Impl::off(y));
        return;
    }
    d_->launch1d("biasActivation", "bias_activation", n, cl_int(rows), cl_int(cols), Impl::mem(x),
                 Impl::off(x), Impl::mem(bb), hasBias ? Impl::off(bb) : cl_ulong(0),
                 cl_int(hasBias), Impl::mem(z), Impl::off(z), Impl::mem(y), Impl::off(y),
                 cl_int(static_cast<int>(act)));
}

void OpenClBackend::activationBackward(int rows, int cols, BufRef z, BufRef y, BufRef dy, BufRef dz,
                                       Activation act) {
    const size_t n = size_t(std::max(rows, 0)) * size_t(std::max(cols, 0));
    d_->check(z, n, "activationBackward z");
    d_->check(y, n, "activationBackward y");
    d_->check(dy, n, "activationBackward dy");
    d_->check(dz, n, "activationBackward dz");
    if (rows <= 0 || cols <= 0) return;
    if (act == Activation::Softmax) {
        d_->launchRows("activationBackward", "softmax_activation_backward", size_t(rows),
                       size_t(cols), 1, cl_int(rows), cl_int(cols), Impl::mem(y), Impl::off(y),
                       Impl::mem(dy), Impl::off(dy), Impl::mem(dz), Impl::off(dz));
        return;
    }
    d_->launch1d("activationBackward", "activation_backward", n, cl_int(rows), cl_int(cols),
                 Impl::mem(z), Impl::off(z), Impl::mem(y), Impl::off(y), Impl::mem(dy),
                 Impl::off(dy), Impl::mem(dz), Impl::off(dz), cl_int(static_cast<int>(act)));
}

void OpenClBackend::biasGradient(int rows, int cols, BufRef dz, BufRef db) {
    d_->check(dz, size_t(std::max(rows, 0)) * size_t(std::max(cols, 0)), "biasGradient dz");
    d_->check(db, size_t(std::max(cols, 0)), "biasGradient db");
    if (rows <= 0 || cols <= 0) return;
    KernelEntry& k = d_->kernel("bias_gradient");
    const size_t cap = d_->rowCap(k);
    const size_t lx = std::min<size_t>({cap, 16, d_->maxItemSizes[0]});
    const size_t ly = floorPow2(std::max<size_t>(1, std::min(cap / lx, d_->maxItemSizes[1])));
    d_->setArgs(k, cl_int(rows), cl_int(cols), Impl::mem(dz), Impl::off(dz), Impl::mem(db),
                Impl::off(db), LocalMem{lx * ly * sizeof(float)});
    const size_t local[2] = {lx, ly};
    const size_t global[2] = {roundUp(size_t(cols), lx), ly};
    d_->enqueue("biasGradient", k, 2, global, local);
}

// ---------------------------------------------------------------------------------------------
// Attention softmax and normalization

void OpenClBackend::softmaxForward(const SoftmaxArgs& s, BufRef x, BufRef y) {
    const size_t n = size_t(std::max(s.rows, 0)) * size_t(std::max(s.cols, 0));
    d_->check(x, n, "softmax x");
    d_->check(y, n, "softmax y");
    if (s.causal && s.queries <= 0)
        throw ComputeError("softmax: causal mask needs queries > 0 (got " +
                           std::to_string(s.queries) + ")");
    if (s.rows <= 0 || s.cols <= 0) return;
    d_->launchRows("softmax", "softmax_forward", size_t(s.rows), size_t(s.cols), 1, cl_int(s.rows),
                   cl_int(s.cols), cl_float(s.scale), cl_int(s.causal),
                   cl_int(s.causal ? s.queries : 1), Impl::mem(x), Impl::off(x), Impl::mem(y),
                   Impl::off(y));
}

void OpenClBackend::softmaxBackward(const SoftmaxArgs& s, BufRef y, BufRef dy, BufRef dx) {
    const size_t n = size_t(std::max(s.rows, 0)) * size_t(std::max(s.cols, 0));
    d_->check(y, n, "softmaxBackward y");
    d_->check(dy, n, "softmaxBackward dy");
    d_->check(dx, n, "softmaxBackward dx");
    if (s.rows <= 0 || s.cols <= 0) return;
    d_->launchRows("softmaxBackward", "softmax_backward", size_t(s.rows), size_t(s.cols), 1,
                   cl_int(s.rows), cl_int(s.cols), cl_float(s.scale), Impl::mem(y), Impl::off(y),
                   Impl::mem(dy), Impl::off(dy), Impl::mem(dx), Impl::off(dx));
}

void OpenClBackend::normForward(int rows, int cols, float eps, BufRef x, BufRef y, BufRef rstd) {
    const size_t n = size_t(std::max(rows, 0)) * size_t(std::max(cols, 0));
    d_->check(x, n, "normForward x");
    d_->check(y, n, "normForward y");
    d_->check(rstd, size_t(std::max(rows, 0)), "normForward rstd");
    if (rows <= 0 || cols <= 0) return;
    d_->launchRows("normForward", "norm_forward", size_t(rows), size_t(cols), 1, cl_int(rows),
                   cl_int(cols), cl_float(eps), Impl::mem(x), Impl::off(x), Impl::mem(y),
                   Impl::off(y), Impl::mem(rstd), Impl::off(rstd));
}

void OpenClBackend::normBackward(int rows, int cols, BufRef y, BufRef rstd, BufRef dy, BufRef dx) {
    const size_t n = size_t(std::max(rows, 0)) * size_t(std::max(cols, 0));
    d_->check(y, n, "normBackward y");
    d_->check(dy, n, "normBackward dy");
    d_->check(dx, n, "normBackward dx");
    d_->check(rstd, size_t(std::max(rows, 0)), "normBackward rstd");
    if (rows <= 0 || cols <= 0) return;
    d_->launchRows("normBackward", "norm_backward", size_t(rows), size_t(cols), 2, cl_int(rows),
                   cl_int(cols), Impl::mem(y), Impl::off(y), Impl::mem(rstd), Impl::off(rstd),
                   Impl::mem(dy), Impl::off(dy), Impl::mem(dx), Impl::off(dx));
}

// ---------------------------------------------------------------------------------------------
// Sliding windows

void OpenClBackend::unfold(int batch, int len, int window, int step, int positions, BufRef x,
                           BufRef cols) {
    if (batch < 0 || len < 0 || window < 0 || positions < 0 || step < 1)
        throw ComputeError("unfold: invalid sizes (batch " + std::to_string(batch) + ", len " +
                           std::to_string(len) + ", window " + std::to_string(window) + ", step " +
                           std::to_string(step) + ", positions " + std::to_string(positions) + ")");
    d_->check(x, size_t(batch) * len, "unfold x");
    const size_t n = size_t(batch) * positions * window;
    d_->check(cols, n, "unfold cols");
    if (n == 0) return;
    d_->launch1d("unfold", "unfold_windows", n, cl_int(batch), cl_int(len), cl_int(window),
                 cl_int(step), cl_int(positions), Impl::mem(x), Impl::off(x), Impl::mem(cols),
                 Impl::off(cols));
}

void OpenClBackend::fold(int batch, int len, int window, int step, int positions, BufRef dcols,
                         BufRef dx) {
    if (batch < 0 || len < 0 || window < 0 || positions < 0 || step < 1)
        throw ComputeError("fold: invalid sizes (batch " + std::to_string(batch) + ", len " +
                           std::to_string(len) + ", window " + std::to_string(window) + ", step " +
                           std::to_string(step) + ", positions " + std::to_string(positions) + ")");
    const size_t n = size_t(batch) * len;
    d_->check(dx, n, "fold dx");
    d_->check(dcols, size_t(batch) * positions * window, "fold dcols");
    if (n == 0) return;
    d_->launch1d("fold", "fold_windows", n, cl_int(batch), cl_int(len), cl_int(window),
                 cl_int(step), cl_int(positions), Impl::mem(dcols), Impl::off(dcols), Impl::mem(dx),
                 Impl::off(dx));
}

// ---------------------------------------------------------------------------------------------
// Losses

void OpenClBackend::mseLoss(int rows, int cols, BufRef y, BufRef target, BufRef dy, BufRef loss,
                            float gradScale) {
    const size_t n = size_t(std::max(rows, 0)) * size_t(std::max(cols, 0));
    d_->check(y, n, "mseLoss y");
    d_->check(target, n, "mseLoss target");
    d_->check(dy, n, "mseLoss dy");
    d_->check(loss, size_t(std::max(rows, 0)), "mseLoss loss");
    if (rows <= 0 || cols <= 0) return;
    d_->launchRows("mseLoss", "mse_loss", size_t(rows), size_t(cols), 1, cl_int(rows), cl_int(cols),
                   Impl::mem(y), Impl::off(y), Impl::mem(target), Impl::off(target), Impl::mem(dy),
                   Impl::off(dy), Impl::mem(loss), Impl::off(loss), cl_float(gradScale));
}

void OpenClBackend::softmaxCrossEntropy(int rows, int cols, BufRef logits, BufRef target,
                                        BufRef prob, BufRef dy, BufRef loss, float gradScale) {
    const size_t n = size_t(std::max(rows, 0)) * size_t(std::max(cols, 0));
    d_->check(logits, n, "crossEntropy logits");
    d_->check(target, n, "crossEntropy target");
    d_->check(prob, n, "crossEntropy prob");
    d_->check(dy, n, "crossEntropy dy");
    d_->check(loss, size_t(std::max(rows, 0)), "crossEntropy loss");
    if (rows <= 0 || cols <= 0) return;
    d_->launchRows("crossEntropy", "softmax_cross_entropy", size_t(rows), size_t(cols), 2,
                   cl_int(rows), cl_int(cols), Impl::mem(logits), Impl::off(logits),
                   Impl::mem(target), Impl::off(target), Impl::mem(prob), Impl::off(prob),
                   Impl::mem(dy), Impl::off(dy), Impl::mem(loss), Impl::off(loss),
                   cl_float(gradScale));
}

// ---------------------------------------------------------------------------------------------
// Optimizers

void OpenClBackend::sgdStep(size_t n, BufRef w, BufRef g, BufRef velocity, float lr, float momentum,
                            float weightDecay) {
    d_->check(w, n, "sgd w");
    d_->check(g, n, "sgd g");
    d_->check(velocity, n, "sgd velocity");
    if (n == 0) return;
    d_->launch1d("sgd", "sgd_step", n, cl_ulong(n), Impl::mem(w), Impl::off(w), Impl::mem(g),
                 Impl::off(g), Impl::mem(velocity), Impl::off(velocity), cl_float(lr),
                 cl_float(momentum), cl_float(weightDecay));
}

void OpenClBackend::adamStep(size_t n, BufRef w, BufRef g, BufRef m, BufRef v, float lr,
                             float beta1, float beta2, float eps, float weightDecay, float bc1,
                             float bc2) {
    d_->check(w, n, "adam w");
    d_->check(g, n, "adam g");
    d_->check(m, n, "adam m");
    d_->check(v, n, "adam v");
    if (n == 0) return;
    // The same float constants as the CPU reference computes.
    const float step = lr / bc1;
    const float keep = 1.0f - lr * weightDecay;
    const float rbc2 = 1.0f / std::sqrt(bc2);
    d_->launch1d("adam", "adam_step", n, cl_ulong(n), Impl::mem(w), Impl::off(w), Impl::mem(g),
                 Impl::off(g), Impl::mem(m), Impl::off(m), Impl::mem(v), Impl::off(v),
                 cl_float(beta1), cl_float(beta2), cl_float(eps), cl_float(step), cl_float(keep),
                 cl_float(rbc2));
}

// ---------------------------------------------------------------------------------------------
// Lightweight convolution

namespace {
void checkLightConvShape(const char* op, int channels, int heads, int k) {
    if (heads <= 0 || channels % heads != 0)
        throw ComputeError(std::string(op) + ": channels " + std::to_string(channels) +
                           " not divisible by heads " + std::to_string(heads));
    if (k <= 0) throw ComputeError(std::string(op) + ": kernel size must be positive");
}
}  // namespace

void OpenClBackend::lightConvForward(int batch, int units, int channels, int heads, int k, int padL,
                                     bool softmaxTaps, BufRef x, BufRef weight, BufRef wsm,
                                     BufRef y) {
    checkLightConvShape("lightConv", channels, heads, k);
    const size_t n =
        size_t(std::max(batch, 0)) * size_t(std::max(units, 0)) * size_t(std::max(channels, 0));
    d_->check(x, n, "lightConv x");
    d_->check(y, n, "lightConv y");
    d_->check(weight, size_t(heads) * k, "lightConv weight");
    d_->check(wsm, size_t(heads) * k, "lightConv wsm");
    KernelEntry& taps = d_->kernel("lightconv_taps");
    d_->setArgs(taps, cl_int(heads), cl_int(k), cl_int(softmaxTaps), Impl::mem(weight),
                Impl::off(weight), Impl::mem(wsm), Impl::off(wsm));
    const size_t tl = std::min<size_t>(d_->elemLocal(taps), 64);
    const size_t tg = roundUp(size_t(heads), tl);
    d_->enqueue("lightConv", taps, 1, &tg, &tl);
    if (n == 0) return;
    d_->launch1d("lightConv", "lightconv_forward", n, cl_int(batch), cl_int(units),
                 cl_int(channels), cl_int(heads), cl_int(k), cl_int(padL), Impl::mem(x),
                 Impl::off(x), Impl::mem(wsm), Impl::off(wsm), Impl::mem(y), Impl::off(y));
}

void OpenClBackend::lightConvBackward(int batch, int units, int channels, int heads, int k,
                                      int padL, bool softmaxTaps, BufRef x, BufRef weight,
                                      BufRef wsm, BufRef dy, BufRef dx, BufRef dw) {
    checkLightConvShape("lightConvBackward", channels, heads, k);
    const size_t n =
        size_t(std::max(batch, 0)) * size_t(std::max(units, 0)) * size_t(std::max(channels, 0));
    d_->check(x, n, "lightConvBackward x");
    d_->check(dy, n, "lightConvBackward dy");
    if (!dx.empty()) d_->check(dx, n, "lightConvBackward dx");
    d_->check(dw, size_t(heads) * k, "lightConvBackward dw");
    d_->check(weight, size_t(heads) * k, "lightConvBackward weight");
    d_->check(wsm, size_t(heads) * k, "lightConvBackward wsm");
    if (!dx.empty() && n > 0)
        d_->launch1d("lightConvBackward", "lightconv_backward_dx", n, cl_int(batch), cl_int(units),
                     cl_int(channels), cl_int(heads), cl_int(k), cl_int(padL), Impl::mem(wsm),
                     Impl::off(wsm), Impl::mem(dy), Impl::off(dy), Impl::mem(dx), Impl::off(dx));
    // Tap gradient per (head, tap) into scratch, then through the optional softmax into dw.
    const size_t taps = size_t(heads) * k;
    cl_mem gw = d_->ensureScratch(taps, "lightConvBackward");
    const size_t perHead = n / size_t(heads);
    d_->launchRows("lightConvBackward", "lightconv_tap_grad", taps, perHead, 1, cl_int(batch),
                   cl_int(units), cl_int(channels), cl_int(heads), cl_int(k), cl_int(padL),
                   Impl::mem(x), Impl::off(x), Impl::mem(dy), Impl::off(dy), gw);
    KernelEntry& apply = d_->kernel("lightconv_weight_grad_apply");
    d_->setArgs(apply, cl_int(heads), cl_int(k), cl_int(softmaxTaps), gw, Impl::mem(wsm),
                Impl::off(wsm), Impl::mem(dw), Impl::off(dw));
    const size_t al = std::min<size_t>(d_->elemLocal(apply), 64);
    const size_t ag = roundUp(size_t(heads), al);
    d_->enqueue("lightConvBackward", apply, 1, &ag, &al);
}

}  // namespace nnwb
