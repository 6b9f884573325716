// The OpenCL backend: every Backend op as kernels from kernels/*.cl (embedded at build time,
// or read from $NNWB_KERNEL_DIR), for any OpenCL 1.2+ device, on one in-order queue. Programs
// are built once at creation (binaries cached on disk); build failures carry the compiler's
// build log. Owned and used by one thread (the one running the network).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "compute/Backend.h"

namespace nnwb {

struct OpenClOptions {
    bool profiling = false;  // per-kernel timing; also switched on by NNWB_CL_PROFILE=1
    std::string kernelDir;   // read the .cl files from here (else $NNWB_KERNEL_DIR, else embedded)
    std::string cacheDir;    // program binary cache directory (else the default, see
                             // OpenClProgramCache)
    bool noCache = false;    // no binary cache (also NNWB_NO_KERNEL_CACHE=1)
    // Tests only: run every product with this gemm kernel ("gemm_small", "gemm_tiled",
    // "gemm_tiled_32", "gemm_tiled_16") and, for the tiled ones, this many K splits.
    std::string gemmKernel;
    int gemmSplits = 0;
    // Tools only (tools/gemm_ab/gemm_tune): the register-tiled gemm kernels (kernels/
    // gemm_reg.cl) to build instead of the built-in list, as {TSM, TSN, TSK, WPTM, WPTN, LPAD}.
    // NNWB_GEMM_REG=0 builds none of the built-in list (A/B runs).
    std::vector<std::array<int, 6>> regTilings;
    // The attention core from gemm and softmax instead of the fused kernels (kernels/
    // attention.cl): for parity tests and A/B runs; also NNWB_CL_ATTENTION=composed.
    bool composedAttention = false;
    // The fused paths: attention blocks (kernels/attention_block.cl) and chains of dense layers
    // (kernels/dense_chain.cl). "auto" (the default) where they fit and measured faster: a
    // block whose heads all fit local memory at once, up to 64 samples over all models, else
    // the split block where it fits (blockSplit below); a dense
    // chain up to 64 rows over all models. "on": wherever they fit (any batch, heads in groups),
    // "off": never (the per-op path). Empty: NNWB_FUSED (auto, 1 = on, 0 = off).
    std::string fused;
    // Tests only: at most this many heads per group in the fused block kernels (0: as many as
    // the local memory holds), so that small shapes run the grouped loops too.
    int blockHeadGroup = 0;
    // Tests only: matmul precision high runs the TF32 gemm kernels with their tensor-core
    // product emulated element by element (kernels/gemm_reg.cl, TF32=2), so that devices
    // without tensor cores (PoCL, oclgrind) run their tiles, rounding and epilogue.
    bool tf32Emulate = false;
    // The fused block kernels' work-group size, a power of two up to what the device and
    // kernels allow (0: 256); for A/B runs also NNWB_CL_BLOCK_LOCAL.
    int blockLocalSize = 0;
    // The work-groups of one sample in the fused block's backward: 0 the shape rule (one per
    // head where batch x heads is at most the compute units, else one), N >= 1 that many (at
    // most the heads; tests and A/B runs); also NNWB_CL_BLOCK_SPREAD.
    int blockSpread = 0;
    // The fused block in four launches of small work-groups (kernels/attention_block_split.cl;
    // docs/decisions/fused-block-split.md) instead of the whole-block kernels: "auto" where the
    // whole-block kernels do not run (they do not fit, or fused auto's rule leaves them out:
    // heads in groups, past 64 samples) and the split kernels fit; "1" wherever the split
    // kernels fit (tests, A/B runs); "0" never (as before: the whole block or per op). Empty:
    // NNWB_CL_BLOCK_SPLIT (0, 1 or auto), else auto. OpenClOptions::fused "off" turns it off too.
    std::string blockSplit;
    // Tests and A/B runs: the local memory (bytes) the fused block kernels may use, at most the
    // device's (0: all of it); 49152 chooses on PoCL (1 MiB) as on NVIDIA's OpenCL. Also
    // NNWB_CL_BLOCK_LOCAL_MEM.
    size_t blockLocalMemory = 0;
};

class OpenClBackend final : public Backend {
public:
    // id is "opencl:P:D"; throws ComputeError naming the id if it does not exist, or with the
    // device name and build log if the kernels do not build.
    static std::unique_ptr<OpenClBackend> create(const std::string& id);
    static std::unique_ptr<OpenClBackend> create(const std::string& id, const OpenClOptions& opt);
    // Every device of every platform; empty when no OpenCL runtime is installed. Never throws.
    static std::vector<DeviceInfo> enumerate();
    // The embedded kernel files as (file name, source) pairs.
    static std::vector<std::pair<std::string, std::string>> embeddedKernelSources();
    ~OpenClBackend() override;

    DeviceInfo info() const override;
    Buffer alloc(size_t count) override;
    void upload(BufRef dst, const float* src, size_t count) override;
    void download(BufRef src, float* dst, size_t count) override;
    void synchronize() override;
    // Where the fused block kernels apply: local memory and work-group size of this device,
    // element-wise activations, and OpenClOptions::fused (NNWB_FUSED).
    bool fusesAttentionBlock(const AttentionBlockShape& s) const override;
    // Whether it runs split there (kernels/attention_block_split.cl; OpenClOptions::blockSplit).
    bool splitsAttentionBlock(const AttentionBlockShape& s) const;
    // High: the large products (the gemm_reg tilings) on TF32 tensor cores where a run-time
    // probe finds them (NVIDIA's OpenCL with inline PTX mma.sync; compute/OpenClTf32.cpp).
    MatmulPrecision setMatmulPrecision(MatmulPrecision p) override;

    // ---- diagnostics ----
    bool profiling() const;
    // Accumulated device time (milliseconds) and launches per kernel name, largest time first
    // (waits for the queued kernels). Empty unless profiling is on.
    struct KernelTime {
        std::string name;
        double ms = 0.0;
        uint64_t launches = 0;
        double gflop = 0;  // productTimes() only
    };
    std::vector<KernelTime> kernelTimes();
    // Device time of the matrix products per shape ("<kernel> <transposes> MxNxK[ xB][ split
    // S]"), split-K reductions included, largest first: name, ms, products (in `launches`)
    // and GFLOP per product. Empty unless profiling is on.
    std::vector<KernelTime> productTimes();
    void resetKernelTimes();
    // Programs of this backend that were loaded from the binary cache instead of compiled.
    int programsFromCache() const;
    int programsBuilt() const;
    // Kernel launches, uploads and downloads enqueued so far (what NNWB_CL_FAIL_AFTER counts).
    uint64_t enqueueCount() const;
    // Waits for the queue so far: clFinish (synchronize, an allocation crossing 64 MiB since the
    // last wait, uploads holding 64 MiB of copies) and downloads; uploads do not wait.
    uint64_t hostWaits() const;
    // The main gemm tiling, e.g. "TSM=64 TSN=64 TSK=16 WPTM=4 WPTN=4".
    std::string gemmConfig() const;
    // The gemm kernels this device has, e.g. {"gemm_small", "gemm_tiled", "gemm_tiled_16"}.
    std::vector<std::string> gemmKernels() const;
    // A/B tools only: run the following products with this gemm kernel (one of gemmKernels())
    // and this many K splits (0: the backend's choice); an empty kernel restores the choice.
    void forceGemm(const std::string& kernel, int splits);
    // Tests and A/B tools: the fused block backward's work-groups per sample from now on, as
    // OpenClOptions::blockSpread (0: the shape rule).
    void setBlockSpread(int spread);
    // Tests and A/B tools: the split fused block from now on, as OpenClOptions::blockSplit
    // ("0", "1" or "auto"; throws ComputeError on anything else).
    void setBlockSplit(const std::string& mode);
    // Tests only: the next kernel launch fails (CL_OUT_OF_RESOURCES) after setting every counter
    // of gemm_longk and the fused block to 1, as a launch stopped part-way on the device can.
    void failNextLaunchPartWay();

    struct Ops;  // the op implementations (OpenClOps.cpp)

protected:
#define NNWB_CL_OP(Name, name) void name##Impl(const Name##Args& args) override;
    NNWB_OPS(NNWB_CL_OP)
#undef NNWB_CL_OP
    void release(void* handle) noexcept override;

private:
    struct Impl;
    explicit OpenClBackend(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> d_;
};

}  // namespace nnwb
