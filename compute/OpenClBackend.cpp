#include "compute/OpenClBackend.h"

#include <cstdio>
#include <cstdlib>

#include "compute/OpenClBackendImpl.h"
#include "kernels/EmbeddedKernels.h"

namespace nnwb {

using namespace cldetail;

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
        cl_ulong staticLocal = 0;  // __local the kernel declares itself (0 where not reported)
        if (clGetKernelWorkGroupInfo(k.get(), ref.device, CL_KERNEL_LOCAL_MEM_SIZE,
                                     sizeof staticLocal, &staticLocal, nullptr) != CL_SUCCESS)
            staticLocal = 0;
        KernelEntry e;
        e.kernel = std::move(k);
        e.name = name;
        e.maxWg = std::max<size_t>(1, wg);
        e.staticLocal = size_t(staticLocal);
        kernels[name] = std::move(e);
    }
}

// Options for one kernel file beyond the defines. attention.cl on NVIDIA's compiler: at most 64
// registers per work-item (72 without), so that 4 work-groups of 256 share an SM; on an H100 at
// transformer-64 b256 this took attention_forward from 0.129 to 0.106 ms and attention_backward
// from 0.214 to 0.173 ms (docs/decisions/fused-attention-core.md).
std::string OpenClBackend::Impl::programOptions(const std::string& file) const {
    if (file == "attention.cl" &&
        clDeviceString(ref.device, CL_DEVICE_EXTENSIONS).find("cl_nv_compiler_options") !=
            std::string::npos)
        return " -cl-nv-maxrregcount=64";
    return std::string();
}

void OpenClBackend::Impl::loadPrograms(
    const std::vector<std::pair<std::string, std::string>>& sources) {
    std::string common, blockHelpers;
    bool haveCommon = false, haveBlockHelpers = false;
    for (const auto& [name, text] : sources)
        if (name == kCommonFile) {
            common = text;
            haveCommon = true;
        } else if (name == kBlockHelpersFile) {
            blockHelpers = text;
            haveBlockHelpers = true;
        }
    if (!haveCommon) throw ComputeError(std::string("OpenCL kernels: ") + kCommonFile + " missing");
    if (!haveBlockHelpers)
        throw ComputeError(std::string("OpenCL kernels: ") + kBlockHelpersFile + " missing");
    const std::string defines = kernelDefines();  // the C++ constants the kernels use

    for (const auto& [name, text] : sources) {
        if (name == kCommonFile || name == kBlockHelpersFile) continue;
        // the fused block's files (attention_block*.cl) share the helpers of kBlockHelpersFile
        const bool block = name.rfind(kBlockFilePrefix, 0) == 0;
        const std::string source =
            common + (block ? "\n#line 1\n" + blockHelpers : std::string()) + "\n#line 1\n" + text;
        if (name == kGemmRegFile) {
            loadGemmReg(source, defines);
            gemmRegSource = source;
            gemmRegDefines = defines;
            continue;
        }
        if (name == kGemmLongKFile) {  // where its work-group fits (none is required)
            if (longK)
                addGemmVariant(name, source, defines, kGemmLongKConfig, "gemm_longk", false, false,
                               true);
            continue;
        }
        if (name == kTf32ProbeFile) {  // built only when matmul precision high is asked for
            tf32ProbeSource = text;
            continue;
        }
        if (name != kGemmFile) {
            ClProgram p = buildProgram(name, source, defines + programOptions(name));
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
            ClProgram p = buildProgram(name, source, defines + " " + c.defines());
            createKernels(p.get());
            const auto it = kernels.find("gemm_tiled");
            if (it != kernels.end() && it->second.maxWg < c.threads()) {
                lastProblem = "gemm_tiled with " + c.defines() + " allows only " +
                              std::to_string(it->second.maxWg) + " work-items";
                kernels.erase(it);
                continue;
            }
            gemm = c;
            gemmVariants.push_back({"gemm_tiled", c});
            programs.push_back(std::move(p));
            done = true;
            break;
        }
        if (!done)
            throw ComputeError("OpenCL device '" + info.name + "' cannot run any gemm tiling" +
                               (lastProblem.empty() ? "" : ": " + lastProblem));
        for (const GemmConfig& c : kGemmExtraConfigs)
            if (c.tsm != gemm.tsm)
                addGemmVariant(name, source, defines, c, "gemm_tiled_" + std::to_string(c.tsm),
                               false);
    }
    sortGemmVariants();
    for (const char* const* k = kRequiredKernels; *k; ++k)
        if (!kernels.count(*k))
            throw ComputeError(std::string("OpenCL kernel '") + *k +
                               "' not found in the kernel sources");
}

// Largest tile first (equal tiles: TF32 builds, then gemm_reg's, then gemm_tiled's).
void OpenClBackend::Impl::sortGemmVariants() {
    std::stable_sort(
        gemmVariants.begin(), gemmVariants.end(), [](const GemmVariant& a, const GemmVariant& b) {
            const int sa = a.config.tsm * a.config.tsn, sb = b.config.tsm * b.config.tsn;
            const int ra = a.tf32 ? 2 : a.reg ? 1 : 0, rb = b.tf32 ? 2 : b.reg ? 1 : 0;
            return sa != sb ? sa > sb : ra > rb;
        });
}

// The register-tiled gemm kernels (kernels/gemm_reg.cl) whose work-group and local memory fit
// the device; each one a variant beside gemm_tiled's (none is required).
void OpenClBackend::Impl::loadGemmReg(const std::string& source, const std::string& defines) {
    for (const GemmConfig& c : regConfigs)
        addGemmVariant(kGemmRegFile, source, defines, c, c.regKernelName(), true);
}

// Builds `file` with tiling c as kernel kname and adds it to gemmVariants where the device runs
// its work-group and local memory (gemm_reg: two local buffers); skips it otherwise.
void OpenClBackend::Impl::addGemmVariant(const std::string& file, const std::string& source,
                                         const std::string& defines, const GemmConfig& c,
                                         const std::string& kname, bool reg, bool tf32,
                                         bool longk) {
    // gemm_longk: threads() * tsk work-items in dimension 0, local sums of tsk x (tsm + 1) x tsn.
    const size_t items = longk ? c.threads() * size_t(c.tsk) : c.threads();
    const size_t local = longk ? size_t(c.tsk) * size_t(c.tsm + 1) * size_t(c.tsn) * sizeof(float)
                               : (reg ? 2 : 1) * c.localBytes();
    if (items > deviceMaxWg || (longk ? items : c.threadsN()) > maxItemSizes[0] ||
        (!longk && c.threadsM() > maxItemSizes[1]) || local > localMemSize)
        return;
    ClProgram p = buildProgram(file, source, defines + " " + c.defines() + " -DGEMM_NAME=" + kname);
    createKernels(p.get());
    const auto it = kernels.find(kname);
    if (it == kernels.end()) return;
    if (it->second.maxWg < items) {
        kernels.erase(it);
        return;
    }
    gemmVariants.push_back({kname, c, reg, tf32, longk});
    programs.push_back(std::move(p));
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

// create's choices from `opt` and the NNWB_* environment overrides (A/B runs, kernel work);
// bad values throw ComputeError naming the variable.
void OpenClBackend::Impl::applyOptions(const OpenClOptions& opt) {
    forcedGemm = opt.gemmKernel;
    for (const auto& t : opt.regTilings) regConfigs.push_back({t[0], t[1], t[2], t[3], t[4], t[5]});
    if (opt.regTilings.empty() && envStr("NNWB_GEMM_REG") != "0")  // 0: A/B runs without them
        regConfigs.assign(std::begin(kGemmRegConfigs), std::end(kGemmRegConfigs));
    forcedSplits = opt.gemmSplits;
    const std::string longKMode = envStr("NNWB_GEMM_LONGK");  // A/B runs: 0 or split
    longK = longKMode == "0" ? 0 : longKMode == "split" ? 1 : 2;
    fusedAttention = !(opt.composedAttention || envStr("NNWB_CL_ATTENTION") == "composed");
    const std::string fusedMode = !opt.fused.empty() ? opt.fused : envStr("NNWB_FUSED");
    if (fusedMode == "off" || fusedMode == "0")
        fused = 0;
    else if (fusedMode == "on" || fusedMode == "1")
        fused = 2;
    else if (fusedMode.empty() || fusedMode == "auto")
        fused = 1;
    else
        throw ComputeError("fused mode '" + fusedMode +
                           "' is not auto, on (1) or off (0) (OpenClOptions::fused, NNWB_FUSED)");
    maxHeadGroup = opt.blockHeadGroup;
    tf32Emulate = opt.tf32Emulate;
    if (!envStr("NNWB_TF32_MIN_K").empty()) {  // A/B runs of the TF32 choice rule
        const std::string v = envStr("NNWB_TF32_MIN_K");
        char* end = nullptr;
        const long k = std::strtol(v.c_str(), &end, 10);
        if (v.empty() || *end != '\0' || k < 0 || k > (1L << 30))
            throw ComputeError("NNWB_TF32_MIN_K '" + v + "' is not a whole number >= 0");
        tf32MinK = int(k);
    }
    blockLocalWanted = opt.blockLocalSize;
    if (blockLocalWanted == 0 && !envStr("NNWB_CL_BLOCK_LOCAL").empty()) {
        const std::string v = envStr("NNWB_CL_BLOCK_LOCAL");
        blockLocalWanted = std::atoi(v.c_str());
        if (blockLocalWanted <= 0 || (blockLocalWanted & (blockLocalWanted - 1)) != 0)
            throw ComputeError("NNWB_CL_BLOCK_LOCAL '" + v + "' is not a power of two");
    }
    blockSpreadWanted = opt.blockSpread;
    if (blockSpreadWanted == 0 && !envStr("NNWB_CL_BLOCK_SPREAD").empty()) {
        const std::string v = envStr("NNWB_CL_BLOCK_SPREAD");
        blockSpreadWanted = std::atoi(v.c_str());
        if (blockSpreadWanted <= 0)
            throw ComputeError("NNWB_CL_BLOCK_SPREAD '" + v + "' is not a positive number");
    }
    blockSplit = parseBlockSplit(
        opt.blockSplit.empty() ? envStr("NNWB_CL_BLOCK_SPLIT") : opt.blockSplit,
        opt.blockSplit.empty() ? "NNWB_CL_BLOCK_SPLIT" : "OpenClOptions::blockSplit");
    blockLocalMemory = opt.blockLocalMemory;
    if (blockLocalMemory == 0 && !envStr("NNWB_CL_BLOCK_LOCAL_MEM").empty()) {
        const std::string v = envStr("NNWB_CL_BLOCK_LOCAL_MEM");
        char* end = nullptr;
        const long long n = std::strtoll(v.c_str(), &end, 10);
        if (*end != '\0' || n <= 0)
            throw ComputeError("NNWB_CL_BLOCK_LOCAL_MEM '" + v +
                               "' is not a positive number of bytes");
        blockLocalMemory = size_t(n);
    }
    if (opt.noCache || envStr("NNWB_NO_KERNEL_CACHE") == "1")
        cache = OpenClProgramCache(std::string());
    else if (!opt.cacheDir.empty())
        cache = OpenClProgramCache(opt.cacheDir);
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

    m.applyOptions(opt);

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
    m.checker = m.info.platform.find("Oclgrind") != std::string::npos;
    m.ensureScratch(0, where);

    auto be = std::unique_ptr<OpenClBackend>(new OpenClBackend(std::move(impl)));
    // NNWB_MATMUL_PRECISION=high: TF32 products from the start (for runs of any command).
    const std::string precision = envStr("NNWB_MATMUL_PRECISION");
    MatmulPrecision want = MatmulPrecision::Highest;
    if (!precision.empty() && !matmulPrecisionFromName(precision, want))
        throw ComputeError("NNWB_MATMUL_PRECISION '" + precision + "' is not highest or high");
    if (be->setMatmulPrecision(want) != want)
        std::fprintf(stderr,
                     "%s (%s): NNWB_MATMUL_PRECISION=high: no TF32 tensor cores found; "
                     "float32 products (highest)\n",
                     id.c_str(), be->d_->info.name.c_str());
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

std::vector<OpenClBackend::KernelTime> OpenClBackend::kernelTimes() {
    d_->drainEvents();
    std::vector<KernelTime> out;
    for (const auto& [name, t] : d_->times) out.push_back({name, t.first, t.second});
    std::stable_sort(out.begin(), out.end(),
                     [](const KernelTime& a, const KernelTime& b) { return a.ms > b.ms; });
    return out;
}

std::vector<OpenClBackend::KernelTime> OpenClBackend::productTimes() {
    d_->drainEvents();
    std::vector<KernelTime> out;
    for (const auto& p : d_->products) out.push_back({p.label, p.ms, p.products, p.gflop});
    std::stable_sort(out.begin(), out.end(),
                     [](const KernelTime& a, const KernelTime& b) { return a.ms > b.ms; });
    return out;
}

void OpenClBackend::resetKernelTimes() {
    d_->drainEvents();
    d_->times.clear();
    d_->products.clear();
    d_->productIndex.clear();
}

int OpenClBackend::programsFromCache() const {
    return d_->fromCache;
}
int OpenClBackend::programsBuilt() const {
    return d_->built;
}
uint64_t OpenClBackend::enqueueCount() const {
    return d_->faults.count();
}
uint64_t OpenClBackend::hostWaits() const {
    return d_->hostWaits;
}
std::string OpenClBackend::gemmConfig() const {
    return d_->gemm.defines();
}
void OpenClBackend::failNextLaunchPartWay() {
    d_->failNextPartWay = true;
}
void OpenClBackend::setBlockSpread(int spread) {
    d_->blockSpreadWanted = std::max(spread, 0);
}
void OpenClBackend::setBlockSplit(const std::string& mode) {
    d_->blockSplit = parseBlockSplit(mode, "setBlockSplit");
}
void OpenClBackend::forceGemm(const std::string& kernel, int splits) {
    d_->forcedGemm = kernel;
    d_->forcedSplits = splits;
}
std::vector<std::string> OpenClBackend::gemmKernels() const {
    std::vector<std::string> out{"gemm_small"};
    for (const auto& v : d_->gemmVariants) out.push_back(v.kernel);
    return out;
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
        // Zero the buffer (as CpuBackend does). A lazy allocation (NVIDIA's) fails when first
        // used: the queue is finished once kFinishBytes or more were allocated since it last
        // was, so a large allocation that does not fit fails here. Not for each buffer: with
        // processes time-sliced on one GPU (a sweep's 8 workers) each wait lasts until this
        // context's turn, and a model's 50-100 buffers took 0.6 s of a trial's start-up
        // (docs/sweeps.md "Speed of the search"). The queue is in order: later ops see zeros.
        constexpr uint64_t kFinishBytes = uint64_t(64) << 20;
        try {
            d_->launch1d("alloc", "fill_f32", size_t(bytes / sizeof(float)), m.get(), cl_ulong(0),
                         cl_ulong(bytes / sizeof(float)), cl_float(0.0f));
        } catch (const ComputeError&) {
            err = CL_OUT_OF_RESOURCES;
        }
        d_->unfinishedBytes += bytes;
        if (err == CL_SUCCESS && d_->unfinishedBytes >= kFinishBytes) {
            ++d_->hostWaits;
            err = clFinish(d_->queue.get());
            if (err == CL_SUCCESS) d_->queueWaited();
        }
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
    if (d_->checker) {  // kept to the end under oclgrind (Impl::checker)
        d_->retired.emplace_back(m);
        return;
    }
    clReleaseMemObject(m);
}

void OpenClBackend::upload(BufRef dst, const float* src, size_t count) {
    d_->check(dst, count, "upload");
    if (count == 0) return;
    if (d_->checker && (dst.offset != 0 || count != dst.buf->size())) {
        // Under oclgrind a part goes through a whole staging buffer (Impl::checker).
        cl_int err = CL_SUCCESS;
        ClMem staging(clCreateBuffer(d_->context.get(), CL_MEM_READ_WRITE, count * sizeof(float),
                                     nullptr, &err));
        clCheck(err, "upload", "clCreateBuffer");
        ++d_->hostWaits;
        clCheck(clEnqueueWriteBuffer(d_->queue.get(), staging.get(), CL_TRUE, 0,
                                     count * sizeof(float), src, 0, nullptr, nullptr),
                "upload", "clEnqueueWriteBuffer");
        d_->copyRaw("upload", staging.get(), 0, Impl::mem(dst), Impl::off(dst), count);
        d_->retired.push_back(std::move(staging));
        return;
    }
    // From 1 MiB on (a training step's batch) a blocking write from the caller's memory: on the
    // H200 transformer-64 b256 (a 4 MiB batch a step) ran 35,532 samples/s with blocking
    // uploads against 25,610 with the copied non-blocking ones (G, 2026-11-29, main 5fbe73d,
    // two runs each alternated; /work/helpers/g-split.md); a model's build uploads less a time.
    if (count * sizeof(float) >= kBlockingUploadBytes) {
        cl_int err = d_->faults.next();
        ++d_->hostWaits;
        if (err == CL_SUCCESS)
            err = clEnqueueWriteBuffer(d_->queue.get(), Impl::mem(dst), CL_TRUE,
                                       dst.offset * sizeof(float), count * sizeof(float), src, 0,
                                       nullptr, nullptr);
        clCheck(err, "upload" + d_->faults.note(), "clEnqueueWriteBuffer");
        d_->queueWaited();  // a blocking write in the in-order queue: everything before it ran
        return;
    }
    // Not blocking: a blocking write waits for every op queued before it (a model's build
    // alternates zeroing a buffer and uploading into it), and with processes time-sliced on one
    // GPU each wait lasts until this context's turn. The bytes are copied into a block kept
    // until the queue has been waited for (the in-order queue has then run the write); past
    // 64 MiB of such blocks the queue is finished here.
    cl_int err = d_->faults.next();
    if (err == CL_SUCCESS) {
        std::vector<float> block(src, src + count);
        err = clEnqueueWriteBuffer(d_->queue.get(), Impl::mem(dst), CL_FALSE,
                                   dst.offset * sizeof(float), count * sizeof(float), block.data(),
                                   0, nullptr, nullptr);
        if (err == CL_SUCCESS) {
            d_->pendingUploadBytes += count * sizeof(float);
            d_->pendingUploads.push_back(std::move(block));
        }
    }
    clCheck(err, "upload" + d_->faults.note(), "clEnqueueWriteBuffer");
    if (d_->pendingUploadBytes >= (uint64_t(64) << 20)) synchronize();
}

void OpenClBackend::download(BufRef src, float* dst, size_t count) {
    d_->check(src, count, "download");
    if (count == 0) return;
    cl_int err = d_->faults.next();
    ++d_->hostWaits;
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(d_->queue.get(), Impl::mem(src), CL_TRUE,
                                  src.offset * sizeof(float), count * sizeof(float), dst, 0,
                                  nullptr, nullptr);
    clCheck(err, "download" + d_->faults.note(), "clEnqueueReadBuffer");
    d_->queueWaited();  // a blocking read in the in-order queue: everything before it ran
}

void OpenClBackend::synchronize() {
    ++d_->hostWaits;
    clCheck(clFinish(d_->queue.get()), "synchronize", "clFinish");
    d_->queueWaited();
}

}  // namespace nnwb
