// The Backend ops of OpenClBackend (arguments already checked by Backend's entries): kernel
// launches (kernels/*.cl), one OpenClBackend::Ops::run per op. No op computes on the host.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <utility>

#include "compute/DropoutMask.h"
#include "compute/OpenClBackend.h"
#include "compute/OpenClBackendImpl.h"

namespace nnwb {

using namespace cldetail;

// Every kernel the host launches; creation fails if one is missing from the sources.
// clang-format off
const char* const cldetail::kRequiredKernels[] = {
    "fill_f32", "copy_f32", "copy2d_f32", "axpy_f32", "add_f32", "gemm_tiled", "bias_activation",
    "bias_softmax_rows", "activation_backward", "bias_gradient",
    "softmax_forward", "softmax_backward", "norm_forward", "norm_backward", "unfold_windows",
    "fold_windows", "mse_loss", "softmax_cross_entropy", "sgd_step", "adam_step",
    "sgd_step_models", "adam_step_models",
    "record_outcomes", "gemm_small", "gemm_reduce_splits",
    "lightconv_taps", "lightconv_forward", "lightconv_backward_dx", "lightconv_tap_grad",
    "lightconv_weight_grad_apply", "clip_sum_squares", "clip_partial_squares",
    "clip_norm_of_partials", "clip_scale", "scale_rows",
    "dropout_forward", "dropout_backward", "attention_forward", "attention_backward",
    "dense_chain_forward", "dense_chain_backward_rows", "dense_chain_weight_grad",
    "attention_block_forward", "attention_block_backward", "attention_block_reduce",
    "attention_block_split_fwd_heads", "attention_block_split_fwd_rows",
    "attention_block_split_bwd_rows", "attention_block_split_bwd_heads", nullptr};
// clang-format on

// The ops: one run per argument struct of compute/Ops.h that this backend implements.
struct OpenClBackend::Ops {
    OpenClBackend& self;
    Impl* d_;

    // ---------------------------------------------------------------------------------------------
    // Element-wise ops and copies

    void run(const FillArgs& args) {
        if (args.n == 0) return;
        d_->launch1d("fill", "fill_f32", args.n, Impl::mem(args.x), Impl::off(args.x),
                     cl_ulong(args.n), cl_float(args.value));
    }

    void run(const CopyArgs& args) {
        if (args.n == 0) return;
        cl_mem s = Impl::mem(args.src), t = Impl::mem(args.dst);
        if (s == t && args.src.offset == args.dst.offset) return;
        const bool overlap = s == t && args.src.offset < args.dst.offset + args.n &&
                             args.dst.offset < args.src.offset + args.n;
        if (overlap) {  // memmove semantics through the scratch buffer
            cl_mem tmp = d_->ensureScratch(args.n, "copy");
            d_->copyRaw("copy", s, Impl::off(args.src), tmp, 0, args.n);
            d_->copyRaw("copy", tmp, 0, t, Impl::off(args.dst), args.n);
            return;
        }
        d_->copyRaw("copy", s, Impl::off(args.src), t, Impl::off(args.dst), args.n);
    }

    void run(const Copy2dArgs& args) {
        if (args.rows <= 0 || args.cols <= 0) return;
        const size_t extS = size_t(args.rows - 1) * args.srcLd + args.cols,
                     extD = size_t(args.rows - 1) * args.dstLd + args.cols;
        cl_mem s = Impl::mem(args.src), t = Impl::mem(args.dst);
        const bool overlap = s == t && args.src.offset < args.dst.offset + extD &&
                             args.dst.offset < args.src.offset + extS;
        if (overlap) {  // rows may overlap: go through a dense copy in the scratch buffer
            cl_mem tmp = d_->ensureScratch(size_t(args.rows) * args.cols, "copy2d");
            d_->launch1d("copy2d", "copy2d_f32", size_t(args.rows) * args.cols, s,
                         Impl::off(args.src), cl_int(args.srcLd), tmp, cl_ulong(0),
                         cl_int(args.cols), cl_int(args.rows), cl_int(args.cols));
            d_->launch1d("copy2d", "copy2d_f32", size_t(args.rows) * args.cols, tmp, cl_ulong(0),
                         cl_int(args.cols), t, Impl::off(args.dst), cl_int(args.dstLd),
                         cl_int(args.rows), cl_int(args.cols));
            return;
        }
        d_->launch1d("copy2d", "copy2d_f32", size_t(args.rows) * args.cols, s, Impl::off(args.src),
                     cl_int(args.srcLd), t, Impl::off(args.dst), cl_int(args.dstLd),
                     cl_int(args.rows), cl_int(args.cols));
    }

    void run(const AxpyArgs& args) {
        if (args.n == 0) return;
        d_->launch1d("axpy", "axpy_f32", args.n, cl_ulong(args.n), cl_float(args.alpha),
                     Impl::mem(args.x), Impl::off(args.x), Impl::mem(args.y), Impl::off(args.y));
    }

    void run(const AddArgs& args) {
        if (args.n == 0) return;
        d_->launch1d("add", "add_f32", args.n, cl_ulong(args.n), Impl::mem(args.a),
                     Impl::off(args.a), Impl::mem(args.b), Impl::off(args.b), Impl::mem(args.out),
                     Impl::off(args.out));
    }

    // ---------------------------------------------------------------------------------------------
    // gemm

    // The fused bias/activation epilogue of gemmBiasActivation.
    struct Epilogue {
        BufRef bias, y;
        Activation act;
    };

    void run(const GemmArgs& g) { gemmWith(g, nullptr); }

    // Sums of op(A)'s rows over K, added to db + p * stride for product p (projectionGradient).
    struct RowSums {
        BufRef db;
        size_t stride;
    };

    // The weight and bias gradients in one product where gemm_tiled or gemm_longk runs it (they
    // add up the rows of op(A) = dz^T they load anyway: the bias gradient without a launch of its
    // own, nor a reduction of its own when K is split); else Backend's default (on gemm_reg the
    // row sums cost every gemm_reg product a third of its speed on the H200:
    // docs/decisions/gemm-fold.md).
    void run(const ProjectionGradientArgs& a) {
        const GemmArgs& g = a.gemm;
        int splits = 1;
        const GemmVariant* v = chooseGemm(g, splits);
        if (!v || v->reg) {
            self.Backend::projectionGradientImpl(a);
            return;
        }
        if (!a.dy.empty())
            run(ActivationBackwardArgs{g.k * g.batch0, g.m, a.z, a.y, a.dy, g.a, a.act});
        const RowSums rs{a.db, g.batch0 > 1 ? a.dbStride : 0};
        gemmWith(g, nullptr, &rs);
    }

    void run(const GemmBiasActivationArgs& args) {
        // A per-row activation is not an element-wise epilogue; the epilogue adds one bias
        // (a population's products: gemm then the per-model biasActivation).
        // A product with a long K and few tiles (a dense head over a flattened sequence, K of
        // 2,048 or more) runs split, then the bias and activation: the epilogue needs the whole
        // sum. Shorter ones keep the epilogue in one launch (what counts at small batches).
        if (args.act == Activation::Softmax || args.gemm.batch0 > 1 ||
            (args.gemm.k >= 2048 && splitsOf(args.gemm) > 1)) {
            self.Backend::gemmBiasActivationImpl(args);
            return;
        }
        const Epilogue e{args.bias, args.y, args.act};
        gemmWith(args.gemm, &e);
    }

    // The gemm kernel for an M x N x K product over `batches` (`forced`: that kernel) and its K
    // splits. gemm_reg kernels (large tiles, kernels/gemm_reg.cl) where their tile wastes at
    // most a quarter of its work on the product's edges and gives at least half a group per
    // compute unit, or K is long enough to split until the device is filled; else the first
    // gemm_tiled tiling (largest first) that fills the device with 2 groups per compute unit,
    // splitting K when K is long; else the one with most groups. At matmul precision high the
    // TF32 builds of gemm_reg come first among equal tiles (same rule). Where that is a gemm_tiled
    // kernel with K split, or gemm_tiled's 16 x 16 tiling, gemm_longk instead (16 x 16 tiles, its
    // own splits, reduced in the same launch; on the H200 every such product of the 12x12 rows
    // took less device time on it).
    // Measurements: docs/decisions/gemm-reg.md, docs/decisions/tf32.md,
    // docs/decisions/gemm-longk.md.
    const GemmVariant* pickGemm(const std::string& forced, int M, int N, int K, size_t batches,
                                int& splits) const {
        const GemmVariant* v = pickGemmTiled(forced, M, N, K, batches, splits);
        if (!forced.empty() || !v || v->reg) return v;
        const bool tile16 = v->config.tsm == 16 && v->config.tsn == 16;
        if (splits <= 1 && !(d_->longK == 2 && tile16)) return v;
        for (const GemmVariant& cand : d_->gemmVariants)
            if (cand.longk) {
                const GemmConfig& c = cand.config;
                const size_t tiles =
                    size_t((M + c.tsm - 1) / c.tsm) * size_t((N + c.tsn - 1) / c.tsn) * batches;
                splits = int(splitsFor(tiles, K));
                return &cand;
            }
        return v;
    }

    // Splits of K for a product of `tiles` work-groups: until the device has 2 groups per compute
    // unit, at least 64 values of K each.
    size_t splitsFor(size_t tiles, int K) const {
        const size_t target = 2 * size_t(std::max(d_->info.computeUnits, 1));
        const size_t most = size_t(std::max(K / 64, 1));
        return tiles >= target ? size_t(1) : std::min(most, (target + tiles - 1) / tiles);
    }

    // pickGemm's choice among the gemm_reg and gemm_tiled kernels (gemm_longk only when forced).
    const GemmVariant* pickGemmTiled(const std::string& forced, int M, int N, int K, size_t batches,
                                     int& splits) const {
        const size_t cus = size_t(std::max(d_->info.computeUnits, 1)), target = 2 * cus;
        auto tilesOf = [&](const GemmConfig& c) {
            return size_t((M + c.tsm - 1) / c.tsm) * size_t((N + c.tsn - 1) / c.tsn) * batches;
        };
        auto splitsFor = [&](size_t tiles) { return this->splitsFor(tiles, K); };
        const GemmVariant* v = nullptr;
        size_t bestWork = 0;
        for (const GemmVariant& cand : d_->gemmVariants) {
            // TF32 builds at matmul precision high only, and chosen only for K >= kTf32MinK
            // (docs/decisions/tf32.md: slower than FP32 gemm_reg at K = 64 on the H200).
            if (cand.tf32 && (!d_->tf32 || (forced.empty() && K < d_->tf32MinK))) continue;
            const GemmConfig& c = cand.config;
            const size_t tiles = tilesOf(c);
            if (!forced.empty()) {
                if (cand.kernel != forced) continue;
                splits = int(splitsFor(tiles));
                return &cand;
            }
            if (cand.longk) continue;
            if (cand.reg) {
                const double used = double(M) * double(N) * double(batches) /
                                    (double(tiles) * double(c.tsm) * double(c.tsn));
                if (used < 0.75) continue;
                if (2 * tiles >= cus) {
                    splits = 1;
                    return &cand;
                }
                if (K >= 2048 && tiles * splitsFor(tiles) >= target) {
                    splits = int(splitsFor(tiles));
                    return &cand;
                }
                continue;
            }
            const size_t sp = splitsFor(tiles);
            if (tiles * sp >= target) {
                splits = int(sp);
                return &cand;
            }
            if (tiles * sp > bestWork) {  // none fills the device: the one with most groups
                bestWork = tiles * sp;
                v = &cand;
                splits = int(sp);
            }
        }
        return v;
    }

    // The K splits gemmWith would run g with.
    int splitsOf(const GemmArgs& g) const {
        const int kk = std::max(g.k, 0);
        if (g.m <= 0 || g.n <= 0 || g.batch0 <= 0 || g.batch1 <= 0) return 1;
        if (d_->forcedGemm.empty() && size_t(g.m) * size_t(g.n) <= 1024 && kk <= 64) return 1;
        if (d_->forcedGemm == "gemm_small") return 1;
        int splits = 1;
        if (!pickGemm(d_->forcedGemm, g.m, g.n, kk, size_t(g.batch0) * size_t(g.batch1), splits))
            return 1;
        return d_->forcedSplits > 0 ? std::min(d_->forcedSplits, std::max(kk, 1)) : splits;
    }

    // The kernel gemmWith runs g with and its K splits (nullptr: gemm_small): tiny products one
    // work-item per element; otherwise the largest tiling that suits the product (pickGemm),
    // splitting K where it gives too few work-groups and K is long (weight gradients over a whole
    // batch). g has M, N > 0.
    const GemmVariant* chooseGemm(const GemmArgs& g, int& splits) const {
        const int kk = std::max(g.k, 0);
        const size_t batches = size_t(g.batch0) * size_t(g.batch1);
        std::string name = d_->forcedGemm;
        if (name.empty()) name = size_t(g.m) * size_t(g.n) <= 1024 && kk <= 64 ? "gemm_small" : "";
        splits = 1;
        if (name == "gemm_small") return nullptr;
        const GemmVariant* v = pickGemm(name, g.m, g.n, kk, batches, splits);
        if (!v) throw ComputeError("gemm: no gemm kernel '" + name + "' on " + d_->info.name);
        if (d_->forcedSplits > 0) splits = std::min(d_->forcedSplits, std::max(kk, 1));
        if (batches * size_t(splits) > 65535 * 64) splits = 1;  // keep the grid reasonable
        return v;
    }

    // `rs`: also the row sums of op(A) (gemm_tiled and gemm_longk only: see
    // run(ProjectionGradientArgs)).
    void gemmWith(const GemmArgs& g, const Epilogue* epi, const RowSums* rs = nullptr) {
        const int M = g.m, N = g.n, K = g.k;
        if (M <= 0 || N <= 0 || g.batch0 <= 0 || g.batch1 <= 0) return;
        const int kk = std::max(K, 0);
        // With K == 0, A and B are never read; C's buffer stands in for them.
        const BufRef a = kk > 0 ? g.a : g.c, b = kk > 0 ? g.b : g.c;
        const size_t batches = size_t(g.batch0) * size_t(g.batch1);
        const size_t mn = size_t(M) * size_t(N);
        int splits = 1;
        const GemmVariant* v = chooseGemm(g, splits);
        // The epilogue needs the whole sum in one pass (gemm_longk's last group of a tile has it).
        if (epi && splits > 1 && !(v && v->longk)) splits = 1;
        // Profiling: this product's launches count towards its line of productTimes().
        struct ProductScope {
            OpenClBackend::Impl* d;
            ~ProductScope() { d->nextProduct = -1; }
        } scope{d_};
        auto profile = [&](const std::string& kernel, int parts) {
            if (!d_->profiling) return;
            std::string label = kernel + " " + (g.transA ? "T" : "N") + (g.transB ? "T" : "N") +
                                " " + std::to_string(M) + "x" + std::to_string(N) + "x" +
                                std::to_string(kk);
            if (batches > 1) label += " x" + std::to_string(batches);
            if (parts > 1) label += " split " + std::to_string(parts);
            d_->profileProduct(label, 2e-9 * double(mn) * double(kk) * double(batches));
        };
        // Epilogue buffers (C's buffer stands in for missing ones; the kernel does not touch them).
        const BufRef eBias = epi && !epi->bias.empty() ? epi->bias : g.c;
        const BufRef eY = epi ? epi->y : g.c;
        // 1: z and y stored; 2: y is z (one store of y's value, as z = x, then y = f(z) in place).
        const cl_int epiCode = !epi ? 0
                               : Impl::mem(eY) == Impl::mem(g.c) && Impl::off(eY) == Impl::off(g.c)
                                   ? 2
                                   : 1;
        if (!v) {
            profile("gemm_small", 1);
            KernelEntry& k = d_->kernel("gemm_small");
            const size_t total = batches * mn;
            d_->setArgs(k, cl_int(M), cl_int(N), cl_int(kk), cl_float(g.alpha), cl_float(g.beta),
                        cl_int(g.transA), cl_int(g.transB), Impl::mem(a), Impl::off(a),
                        cl_int(g.lda), cl_ulong(g.strideA0), cl_ulong(g.strideA1), Impl::mem(b),
                        Impl::off(b), cl_int(g.ldb), cl_ulong(g.strideB0), cl_ulong(g.strideB1),
                        Impl::mem(g.c), Impl::off(g.c), cl_int(g.ldc), cl_ulong(g.strideC0),
                        cl_ulong(g.strideC1), cl_int(g.batch1), cl_ulong(total), cl_int(epiCode),
                        Impl::mem(eBias), Impl::off(eBias), cl_int(epi && !epi->bias.empty()),
                        Impl::mem(eY), Impl::off(eY), cl_int(epi ? int(epi->act) : 0));
            const size_t local = d_->elemLocal(k);
            const size_t global = roundUp(total, local);
            d_->enqueue("gemm", k, 1, &global, &local);
            return;
        }
        const GemmConfig& c = v->config;
        const int kChunk = splits > 1
                               ? int(roundUp(size_t((kk + splits - 1) / splits), size_t(c.tsk)))
                               : std::max(kk, 1);
        if (splits > 1) splits = (kk + kChunk - 1) / kChunk;
        profile(v->kernel, splits);
        // Split K: the partial products, then (rs) the partial row sums [batch][split][M].
        const size_t parts = batches * size_t(splits);
        cl_mem partial = splits > 1 ? d_->ensureScratch(parts * (mn + (rs ? size_t(M) : 0)), "gemm")
                                    : Impl::mem(g.c);
        KernelEntry& k = d_->kernel(v->kernel.c_str());
        d_->setArgs(k, cl_int(M), cl_int(N), cl_int(kk), cl_float(g.alpha), cl_float(g.beta),
                    cl_int(g.transA), cl_int(g.transB), Impl::mem(a), Impl::off(a), cl_int(g.lda),
                    cl_ulong(g.strideA0), cl_ulong(g.strideA1), Impl::mem(b), Impl::off(b),
                    cl_int(g.ldb), cl_ulong(g.strideB0), cl_ulong(g.strideB1), Impl::mem(g.c),
                    Impl::off(g.c), cl_int(g.ldc), cl_ulong(g.strideC0), cl_ulong(g.strideC1),
                    cl_int(g.batch1), cl_int(splits), cl_int(kChunk), partial, cl_int(epiCode),
                    Impl::mem(eBias), Impl::off(eBias), cl_int(epi && !epi->bias.empty()),
                    Impl::mem(eY), Impl::off(eY), cl_int(epi ? int(epi->act) : 0));
        const size_t tilesN = size_t((N + c.tsn - 1) / c.tsn),
                     tilesM = size_t((M + c.tsm - 1) / c.tsm);
        if (!v->reg) {  // the row sums: into db, or (gemm_tiled) after the partial products
            const BufRef r = rs ? rs->db : g.c;
            const bool viaPartial = splits > 1 && !v->longk;  // gemm_longk adds them to db itself
            d_->setArg(k, 33, cl_int(rs != nullptr));
            d_->setArg(k, 34, viaPartial ? partial : Impl::mem(r));
            d_->setArg(k, 35, cl_ulong(viaPartial ? parts * mn : Impl::off(r)));
            d_->setArg(k, 36, cl_ulong(viaPartial ? size_t(M) : rs ? rs->stride : 0));
        }
        if (v->longk) {  // one launch: (threads x lanes) per tile, the splits reduced in it
            // Counters (one per batch and tile) only where K is split; unsplit never reads them.
            d_->setArg(k, 37, d_->ensureGemmCounters(splits > 1 ? batches * tilesM * tilesN : 1));
            const size_t items = c.threads() * size_t(c.tsk);
            const size_t local[3] = {items, 1, 1};
            const size_t global[3] = {tilesN * items, tilesM, batches * size_t(splits)};
            d_->enqueue("gemm", k, 3, global, local);
            return;
        }
        const size_t local[3] = {c.threadsN(), c.threadsM(), 1};
        const size_t global[3] = {tilesN * c.threadsN(), tilesM * c.threadsM(),
                                  batches * size_t(splits)};
        d_->enqueue("gemm", k, 3, global, local);
        if (splits > 1) {
            KernelEntry& r = d_->kernel("gemm_reduce_splits");
            const size_t total = batches * mn, rowTotal = rs ? batches * size_t(M) : 0;
            const BufRef db = rs ? rs->db : g.c;
            d_->setArgs(r, cl_int(M), cl_int(N), cl_int(splits), cl_float(g.alpha),
                        cl_float(g.beta), partial, Impl::mem(g.c), Impl::off(g.c), cl_int(g.ldc),
                        cl_ulong(g.strideC0), cl_ulong(g.strideC1), cl_int(g.batch1),
                        cl_ulong(total), cl_ulong(rowTotal), Impl::mem(db), Impl::off(db),
                        cl_ulong(rs ? rs->stride : 0));
            const size_t lr = d_->elemLocal(r);
            const size_t gr = roundUp(total + rowTotal, lr);
            d_->enqueue("gemm", r, 1, &gr, &lr);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Bias and activation

    void run(const BiasActivationArgs& args) {
        const size_t n = size_t(std::max(args.rows, 0)) * size_t(std::max(args.cols, 0));
        const bool hasBias = !args.bias.empty();
        if (args.rows <= 0 || args.cols <= 0) return;
        const BufRef bb = hasBias ? args.bias : args.x;
        const cl_int perModel = args.rows / args.models;
        const cl_ulong biasStride = args.models > 1 ? cl_ulong(args.biasStride) : 0;
        if (args.act == Activation::Softmax) {
            d_->launchRows("biasActivation", "bias_softmax_rows", size_t(args.rows),
                           size_t(args.cols), 1, cl_int(args.rows), cl_int(args.cols),
                           Impl::mem(args.x), Impl::off(args.x), Impl::mem(bb),
                           hasBias ? Impl::off(bb) : cl_ulong(0), cl_int(hasBias),
                           Impl::mem(args.z), Impl::off(args.z), Impl::mem(args.y),
                           Impl::off(args.y), perModel, biasStride);
            return;
        }
        d_->launch1d("biasActivation", "bias_activation", n, cl_int(args.rows), cl_int(args.cols),
                     Impl::mem(args.x), Impl::off(args.x), Impl::mem(bb),
                     hasBias ? Impl::off(bb) : cl_ulong(0), cl_int(hasBias), Impl::mem(args.z),
                     Impl::off(args.z), Impl::mem(args.y), Impl::off(args.y),
                     cl_int(static_cast<int>(args.act)), perModel, biasStride);
    }

    void run(const ActivationBackwardArgs& args) {
        const size_t n = size_t(std::max(args.rows, 0)) * size_t(std::max(args.cols, 0));
        if (args.rows <= 0 || args.cols <= 0) return;
        if (args.act == Activation::Softmax) {
            // The attention softmax backward with scale 1: dz = y * (dy - sum(dy * y)).
            d_->launchRows("activationBackward", "softmax_backward", size_t(args.rows),
                           size_t(args.cols), 1, cl_int(args.rows), cl_int(args.cols),
                           cl_float(1.0f), Impl::mem(args.y), Impl::off(args.y), Impl::mem(args.dy),
                           Impl::off(args.dy), Impl::mem(args.dz), Impl::off(args.dz));
            return;
        }
        d_->launch1d("activationBackward", "activation_backward", n, cl_int(args.rows),
                     cl_int(args.cols), Impl::mem(args.z), Impl::off(args.z), Impl::mem(args.y),
                     Impl::off(args.y), Impl::mem(args.dy), Impl::off(args.dy), Impl::mem(args.dz),
                     Impl::off(args.dz), cl_int(static_cast<int>(args.act)));
    }

    void run(const BiasGradientArgs& args) {
        biasGradientWith(args.rows, args.cols, args.dz, args.db, nullptr, args.dz, args.dz, args.dz,
                         args.models, args.dbStride);
    }

    void run(const ActivationBiasBackwardArgs& args) {
        // Fused only for short columns (small batches), where launches dominate: the fused kernel
        // spreads rows over few work-groups, which loses to the element-wise kernel on tall inputs.
        if (args.act == Activation::Softmax || args.rows / args.models > 256) {
            self.Backend::activationBiasBackwardImpl(args);
            return;
        }
        biasGradientWith(args.rows, args.cols, args.dz, args.db, &args.act, args.z, args.y, args.dy,
                         args.models, args.dbStride);
    }

    // `rows` over all models; each model's rows sum into its own db (docs/decisions/population.md).
    void biasGradientWith(int allRows, int cols, BufRef dz, BufRef db, const Activation* act,
                          BufRef z, BufRef y, BufRef dy, int models, size_t dbStride) {
        if (allRows <= 0 || cols <= 0) return;
        const int rows = allRows / models;
        KernelEntry& k = d_->kernel("bias_gradient");
        const size_t cap = d_->rowCap(k);
        const size_t lx = std::min<size_t>({cap, 32, d_->maxItemSizes[0]});
        const size_t ly = floorPow2(std::max<size_t>(1, std::min(cap / lx, d_->maxItemSizes[1])));
        // Enough groups to fill the device: split the rows into chunks of at least 64 per lane
        // set when the columns alone give too few groups.
        const size_t groupsX = (size_t(cols) + lx - 1) / lx;
        const size_t target = 2 * size_t(std::max(d_->info.computeUnits, 1));
        const size_t groups = groupsX * size_t(models);
        size_t chunks = groups >= target ? 1 : (target + groups - 1) / groups;
        chunks = std::max<size_t>(1, std::min(chunks, size_t(rows) / (64 * ly)));
        const int rowChunk = int((size_t(rows) + chunks - 1) / chunks);
        chunks = (size_t(rows) + size_t(rowChunk) - 1) / size_t(rowChunk);
        cl_mem partial =
            chunks > 1 ? d_->ensureScratch(size_t(models) * chunks * size_t(cols), "biasGradient")
                       : Impl::mem(db);
        d_->setArgs(k, cl_int(rows), cl_int(cols), Impl::mem(dz), Impl::off(dz), Impl::mem(db),
                    Impl::off(db), cl_int(rowChunk), partial, cl_int(act ? int(*act) : -1),
                    Impl::mem(z), Impl::off(z), Impl::mem(y), Impl::off(y), Impl::mem(dy),
                    Impl::off(dy), cl_ulong(dbStride), LocalMem{lx * ly * sizeof(float)});
        const size_t local[3] = {lx, ly, 1};
        const size_t global[3] = {roundUp(size_t(cols), lx), chunks * ly, size_t(models)};
        d_->enqueue("biasGradient", k, 3, global, local);
        if (chunks > 1) {  // db += sum of the chunks (the split-K reduction of gemm), per model
            KernelEntry& r = d_->kernel("gemm_reduce_splits");
            const size_t total = size_t(models) * size_t(cols);
            d_->setArgs(r, cl_int(1), cl_int(cols), cl_int(chunks), cl_float(1.0f), cl_float(1.0f),
                        partial, Impl::mem(db), Impl::off(db), cl_int(cols), cl_ulong(dbStride),
                        cl_ulong(0), cl_int(1), cl_ulong(total), cl_ulong(0), Impl::mem(db),
                        cl_ulong(0), cl_ulong(0));
            const size_t lr = d_->elemLocal(r);
            const size_t gr = roundUp(total, lr);
            d_->enqueue("biasGradient", r, 1, &gr, &lr);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Attention softmax and normalization

    void run(const SoftmaxForwardArgs& args) {
        if (args.s.rows <= 0 || args.s.cols <= 0) return;
        d_->launchRows("softmax", "softmax_forward", size_t(args.s.rows), size_t(args.s.cols), 1,
                       cl_int(args.s.rows), cl_int(args.s.cols), cl_float(args.s.scale),
                       cl_int(args.s.causal), cl_int(args.s.causal ? args.s.queries : 1),
                       Impl::mem(args.x), Impl::off(args.x), Impl::mem(args.y), Impl::off(args.y));
    }

    void run(const SoftmaxBackwardArgs& args) {
        if (args.s.rows <= 0 || args.s.cols <= 0) return;
        d_->launchRows("softmaxBackward", "softmax_backward", size_t(args.s.rows),
                       size_t(args.s.cols), 1, cl_int(args.s.rows), cl_int(args.s.cols),
                       cl_float(args.s.scale), Impl::mem(args.y), Impl::off(args.y),
                       Impl::mem(args.dy), Impl::off(args.dy), Impl::mem(args.dx),
                       Impl::off(args.dx));
    }

    // A dense chain in kernels/dense_chain.cl where it applies: element-wise activations, a
    // work-group of 32 x G items (G >= 1) whose local arrays fit (two of the widest layer's
    // width and G * kDenseChainPart partial sums), fewer than 2^31 weights, and (mode auto) at most
    // kDenseChainFusedRows rows over all models (5x8 at 128 models of one sample measured 48,149
    // samples/s fused against 62,183 per op on the H100) and at most kDenseChainFusedReads weight
    // reads (rows x one model's weights: every row's work-group reads its model's weights in the
    // forward and again in the backward; on the H200 12x12's head at 64 rows, 95M, took 395 us of
    // device time a step fused against 217 us op by op, 5x8's at 64 rows, 8.8M, 62 against 131 us:
    // docs/decisions/fused-dense-chain.md); else Backend's default, op by op.
    static constexpr int kDenseChainFusedRows = 64;
    static constexpr size_t kDenseChainFusedReads = size_t(1) << 26;
    static constexpr size_t kDenseChainPart = 8 * 33;  // DC_K * 33 >= 32 * DC_K (dense_chain.cl)
    static int widestOf(const DenseChainArgs& a) {
        int widest = a.l[0].in;
        for (int i = 0; i < a.layers; ++i) widest = std::max(widest, a.l[i].out);
        return widest;
    }
    // G of the 32 x G work-group, 0 when none fits.
    size_t denseChainGroups(const DenseChainArgs& a) const {
        const KernelEntry& f = d_->kernel("dense_chain_forward");
        const KernelEntry& b = d_->kernel("dense_chain_backward_rows");
        const size_t cap = std::min({f.maxWg, b.maxWg, d_->deviceMaxWg, size_t(1024)});
        if (cap < 32 || d_->maxItemSizes[0] < 32) return 0;
        size_t g = std::min(cap / 32, d_->maxItemSizes[1]);
        // oclgrind emulates every work-item: two groups keep the cross-group sums tested
        if (d_->checker) g = std::min<size_t>(g, 2);
        while (g > 0 && denseChainLocalFloats(a, g) * sizeof(float) > size_t(d_->localMemSize))
            g /= 2;
        return g;
    }
    static size_t denseChainLocalFloats(const DenseChainArgs& a, size_t groups) {
        return 2 * size_t(widestOf(a)) + groups * kDenseChainPart;
    }
    bool denseChainFused(const DenseChainArgs& a) const {
        if (d_->fused == 0 || a.rows == 0) return false;
        if (d_->fused == 1 && a.rows > kDenseChainFusedRows) return false;
        size_t perModel = 0;
        for (int i = 0; i < a.layers; ++i) {
            if (a.l[i].act == Activation::Softmax) return false;
            perModel += size_t(a.l[i].out) * size_t(a.l[i].in + 1);
        }
        if (d_->fused == 1 && size_t(a.rows) * perModel > kDenseChainFusedReads) return false;
        return size_t(a.models) * perModel < (size_t(1) << 31) && denseChainGroups(a) > 0;
    }
    // Launches one work-group of 32 x G per row with the two activation arrays and the
    // partial sums as the last three (local) arguments.
    void launchDenseRows(const char* op, KernelEntry& k, cl_uint n, const DenseChainArgs& a) {
        const size_t groups = denseChainGroups(a);
        const size_t widest = size_t(widestOf(a)) * sizeof(float);
        d_->setArg(k, n++, LocalMem{widest});
        d_->setArg(k, n++, LocalMem{widest});
        d_->setArg(k, n++, LocalMem{groups * kDenseChainPart * sizeof(float)});
        const size_t local[2] = {32, groups};
        const size_t global[2] = {size_t(a.rows) * 32, groups};
        d_->enqueue(op, k, 2, global, local);
    }
    // Layer slot i's kernel arguments (slots past the chain repeat layer 0's buffers, sizes 0).
    template <typename F>
    void forLayers(const DenseChainArgs& a, F&& f) {
        for (int i = 0; i < kMaxDenseChain; ++i) {
            DenseChainLayer l = i < a.layers ? a.l[i] : a.l[0];
            if (i >= a.layers) l.in = l.out = 0;
            f(l);
        }
    }
    void run(const DenseChainForwardArgs& a) {
        if (!denseChainFused(a)) {
            self.Backend::denseChainForwardImpl(a);
            return;
        }
        KernelEntry& k = d_->kernel("dense_chain_forward");
        cl_uint n = 0;
        auto arg = [&](const auto& v) { d_->setArg(k, n++, v); };
        for (auto v : {cl_int(a.layers), cl_int(a.rows), cl_int(a.rows / a.models)}) arg(v);
        arg(Impl::mem(a.x));
        arg(Impl::off(a.x));
        forLayers(a, [&](const DenseChainLayer& l) {
            for (auto v : {cl_int(l.in), cl_int(l.out), cl_int(int(l.act))}) arg(v);
            arg(Impl::mem(l.w));
            arg(Impl::off(l.w));
            arg(Impl::mem(l.b));
            arg(Impl::off(l.b));
            arg(cl_ulong(a.models > 1 ? l.stride : 0));
            arg(Impl::mem(l.z));
            arg(Impl::off(l.z));
            arg(Impl::mem(l.y));
            arg(Impl::off(l.y));
        });
        launchDenseRows("denseChainForward", k, n, a);
    }
    void run(const DenseChainBackwardArgs& a) {
        if (!denseChainFused(a)) {
            self.Backend::denseChainBackwardImpl(a);
            return;
        }
        const cl_ulong zero = 0;
        {
            KernelEntry& k = d_->kernel("dense_chain_backward_rows");
            cl_uint n = 0;
            auto arg = [&](const auto& v) { d_->setArg(k, n++, v); };
            for (auto v : {cl_int(a.layers), cl_int(a.rows), cl_int(a.rows / a.models)}) arg(v);
            arg(Impl::mem(a.dy));
            arg(Impl::off(a.dy));
            arg(a.dx.empty() ? Impl::mem(a.dy) : Impl::mem(a.dx));
            arg(a.dx.empty() ? zero : Impl::off(a.dx));
            arg(cl_int(a.dx.empty() ? 0 : 1));
            forLayers(a, [&](const DenseChainLayer& l) {
                for (auto v : {cl_int(l.in), cl_int(l.out), cl_int(int(l.act))}) arg(v);
                arg(Impl::mem(l.w));
                arg(Impl::off(l.w));
                arg(cl_ulong(a.models > 1 ? l.stride : 0));
                arg(Impl::mem(l.z));
                arg(Impl::off(l.z));
                arg(Impl::mem(l.y));
                arg(Impl::off(l.y));
                arg(Impl::mem(l.dz));
                arg(Impl::off(l.dz));
            });
            launchDenseRows("denseChainBackward", k, n, a);
        }
        KernelEntry& k = d_->kernel("dense_chain_weight_grad");
        cl_uint n = 0;
        auto arg = [&](const auto& v) { d_->setArg(k, n++, v); };
        for (auto v : {cl_int(a.layers), cl_int(a.models), cl_int(a.rows / a.models)}) arg(v);
        arg(Impl::mem(a.x));
        arg(Impl::off(a.x));
        size_t total = 0;
        forLayers(a, [&](const DenseChainLayer& l) {
            total += size_t(a.models) * size_t(l.out) * size_t(l.in + 1);
            for (auto v : {cl_int(l.in), cl_int(l.out)}) arg(v);
            arg(Impl::mem(l.dw));
            arg(Impl::off(l.dw));
            arg(Impl::mem(l.db));
            arg(Impl::off(l.db));
            arg(cl_ulong(a.models > 1 ? l.stride : 0));
            arg(Impl::mem(l.dz));
            arg(Impl::off(l.dz));
            arg(Impl::mem(l.y));
            arg(Impl::off(l.y));
        });
        const size_t local = d_->elemLocal(k);
        const size_t global = roundUp(std::min(total, local * 65536), local);
        d_->enqueue("denseChainBackward", k, 1, &global, &local);
    }

    // The fused attention core (kernels/attention.cl), where its local arrays fit; else the
    // composition of gemm and softmax (Backend's default, through the scratch arguments).
    struct AttentionLocal {
        size_t f[4];  // floats of the four local arrays
        size_t bytes() const { return (f[0] + f[1] + f[2] + f[3]) * sizeof(float); }
    };
    // The kernels' layouts (kernels/attention.cl): n rounded up to 4, and a row stride that is
    // a multiple of 4 with an odd quarter (QS).
    static size_t up4(int n) { return (size_t(n) + 3) & ~size_t(3); }
    static size_t qs(int n) { return 4 * ((size_t(n + 3) >> 2) | 1); }
    static AttentionLocal forwardLocal(const AttentionShape& s) {
        const size_t u = size_t(s.units), ls = qs(s.units);
        return {
            {u * qs(s.keySize), up4(s.keySize) * ls, up4(s.units) * up4(s.valueSize), u * ls + u}};
    }
    static AttentionLocal backwardLocal(const AttentionShape& s) {
        const size_t u = size_t(s.units), ls = qs(s.units);
        const size_t vq = std::max(up4(s.valueSize) * ls, u * up4(s.keySize));  // V^T, then Q
        return {{up4(s.units) * up4(s.keySize), vq, u * qs(s.valueSize), u * ls + u}};
    }
    bool fused(const AttentionLocal& l) const {
        return d_->fusedAttention && l.bytes() <= size_t(d_->localMemSize);
    }
    // About one work-item per 4x4 tile of the scores (the kernels loop over tiles and rows for
    // any size), at most 256.
    size_t attentionLocalSize(const KernelEntry& k, int units) const {
        const size_t cap = std::min({size_t(256), k.maxWg, d_->deviceMaxWg, d_->maxItemSizes[0]});
        const size_t blocks = up4(units) / 4;
        return std::max<size_t>(1, std::min(cap, roundUp(blocks * blocks, 32)));
    }
    template <typename... A>
    void launchAttention(const char* op, const char* name, const AttentionShape& s,
                         const AttentionLocal& l, const A&... a) {
        KernelEntry& k = d_->kernel(name);
        d_->setArgs(k, cl_int(s.heads), cl_int(s.units), cl_int(s.keySize), cl_int(s.valueSize),
                    cl_int(s.ldQkv), cl_int(s.ldCtx), cl_float(s.scale), cl_int(s.causal ? 1 : 0),
                    a..., LocalMem{l.f[0] * sizeof(float)}, LocalMem{l.f[1] * sizeof(float)},
                    LocalMem{l.f[2] * sizeof(float)}, LocalMem{l.f[3] * sizeof(float)});
        const size_t local = attentionLocalSize(k, s.units);
        const size_t global = size_t(s.batch) * size_t(s.heads) * local;
        d_->enqueue(op, k, 1, &global, &local);
    }
    void run(const AttentionForwardArgs& args) {
        if (args.s.batch == 0) return;
        const AttentionLocal l = forwardLocal(args.s);
        if (!fused(l)) {
            self.Backend::attentionForwardImpl(args);
            return;
        }
        launchAttention("attentionForward", "attention_forward", args.s, l, Impl::mem(args.qkv),
                        Impl::off(args.qkv), Impl::mem(args.p), Impl::off(args.p),
                        Impl::mem(args.ctx), Impl::off(args.ctx));
    }
    void run(const AttentionBackwardArgs& args) {
        if (args.s.batch == 0) return;
        const AttentionLocal l = backwardLocal(args.s);
        if (!fused(l)) {
            self.Backend::attentionBackwardImpl(args);
            return;
        }
        launchAttention("attentionBackward", "attention_backward", args.s, l, Impl::mem(args.qkv),
                        Impl::off(args.qkv), Impl::mem(args.p), Impl::off(args.p),
                        Impl::mem(args.dctx), Impl::off(args.dctx), Impl::mem(args.dqkv),
                        Impl::off(args.dqkv));
    }

    // The fused attention block (kernels/attention_block.cl): one work-group of blockLocalSize()
    // work-items per sample, its local memory carved up as the kernels' comments say; or split
    // (blockSplitUsed; kernels/attention_block_split.cl): a launch of a work-group per (sample,
    // head), then one of a work-group per sample.
    void run(const AttentionBlockForwardArgs& args) {
        const AttentionBlockShape& s = args.s;
        if (s.batch == 0) return;
        if (!self.fusesAttentionBlock(s))
            throw ComputeError("attentionBlockForward: the fused block does not fit " +
                               d_->info.name + " (check fusesAttentionBlock first)");
        const size_t lsz = d_->blockLocalSize();
        if (d_->blockSplitUsed(s)) {
            for (int kk : {0, 1}) {
                KernelEntry& k = d_->kernel(kBlockSplitKernels[kk]);
                cl_uint i = setForwardArgs(k, args, 1);
                d_->setArg(k, i++, LocalMem{blockSplitFloats(s, lsz, kk) * sizeof(float)});
                const size_t global = size_t(s.batch) * size_t(kk == 0 ? s.heads : 1) * lsz;
                d_->enqueue("attentionBlockForward", k, 1, &global, &lsz);
            }
            return;
        }
        KernelEntry& k = d_->kernel("attention_block_forward");
        const int g = d_->blockHeadGroup(s, lsz);
        const size_t ws = blockForwardStaging(s);
        cl_uint i = setForwardArgs(k, args, g);
        d_->setArg(k, i++, LocalMem{(blockForwardFloats(s, lsz, g) + ws) * sizeof(float)});
        const size_t global = size_t(s.batch) * lsz;
        d_->enqueue("attentionBlockForward", k, 1, &global, &lsz);
    }
    // attention_block_forward's arguments (the split forward kernels take the same) up to the
    // local memory; returns its index.
    cl_uint setForwardArgs(KernelEntry& k, const AttentionBlockForwardArgs& args, int g) {
        const AttentionBlockShape& s = args.s;
        d_->setArgs(k, cl_int(s.units), cl_int(s.window), cl_int(s.heads), cl_int(s.keySize),
                    cl_int(s.valueSize), cl_int(s.w0), cl_int(s.causal), cl_int(s.sequenceNorm),
                    cl_int(int(s.hidden)), cl_int(int(s.ffOut)), cl_float(s.eps),
                    cl_float(1.0f / std::sqrt(float(s.keySize))), cl_int(s.batch / s.models),
                    cl_int(g), Impl::mem(args.x), Impl::off(args.x));
        cl_uint i = 16;
        i = setParams(k, i, args.w);
        return setActs(k, i, args.a);
    }
    cl_uint setActs(KernelEntry& k, cl_uint i, const BlockActs& a) {
        for (BufRef r : {a.qkv, a.p, a.ctx, a.x1, a.rstd1, a.z1, a.h1, a.z2, a.f, a.out, a.rstd2}) {
            d_->setArg(k, i++, Impl::mem(r));
            d_->setArg(k, i++, Impl::off(r));
        }
        return i;
    }
    // One launch computing dX and each sample's parameter gradients, `spread` work-groups a
    // sample (blockSpread): added straight to the gradients when every model has one sample,
    // else stored per sample in the scratch buffer and added by one attention_block_reduce
    // launch. With spread > 1 the heads' parts of dX go through the scratch buffer too (after
    // the gradient rows) and the counters (one per sample, 0 between launches). Split
    // (blockSplitUsed): a launch of a work-group per sample (stages 1-6: dC and dR1 into the
    // scratch buffer after those), then one per (sample, head) (stages 7-10, dX by the counters
    // where there are several heads), then the reduction as above.
    void run(const AttentionBlockBackwardArgs& args) {
        const AttentionBlockShape& s = args.s;
        if (s.batch == 0) return;
        if (!self.fusesAttentionBlock(s))
            throw ComputeError("attentionBlockBackward: the fused block does not fit " +
                               d_->info.name + " (check fusesAttentionBlock first)");
        const size_t lsz = d_->blockLocalSize(), spm = size_t(s.batch / s.models);
        const bool split = d_->blockSplitUsed(s);
        int g = 1;
        const int spread = split ? s.heads : d_->blockSpread(s, lsz, g);
        size_t total = 0;
        for (int i = 0; i < kBlockParams; ++i) total += s.paramCount(i);
        const bool direct = spm == 1, parts = spread > 1 && !args.dx.empty();
        const size_t uw = size_t(s.units) * s.window, batch = size_t(s.batch);
        const size_t partialFloats = direct ? 0 : batch * total;
        const size_t partFloats = parts ? batch * size_t(spread) * uw : 0;
        // split: dC [batch][U][C] at dco and dR1 [batch][U][W] at dro after them
        const size_t dco = partialFloats + partFloats,
                     dro = dco + (split ? batch * s.units * size_t(s.ctxWidth()) : 0),
                     scratchFloats = dro + (split ? batch * uw : 0);
        cl_mem scratch = scratchFloats > 0
                             ? d_->ensureScratch(scratchFloats, "attentionBlockBackward")
                             : Impl::mem(args.x);
        cl_mem partial = direct ? Impl::mem(args.x) : scratch;
        cl_mem counters = d_->ensureGemmCounters(parts ? batch : 1);
        auto launch = [&](const char* name, int groupsPerSample, size_t floats, bool scr) {
            KernelEntry& k = d_->kernel(name);
            cl_uint i = setBackwardArgs(k, args, g, direct, partial);
            d_->setArg(k, i++, cl_int(spread));
            d_->setArg(k, i++, parts ? scratch : Impl::mem(args.x));
            d_->setArg(k, i++, cl_ulong(partialFloats));
            d_->setArg(k, i++, counters);
            if (scr) {
                d_->setArg(k, i++, scratch);
                d_->setArg(k, i++, cl_ulong(dco));
                d_->setArg(k, i++, cl_ulong(dro));
            }
            d_->setArg(k, i++, LocalMem{floats * sizeof(float)});
            const size_t global = batch * size_t(groupsPerSample) * lsz;
            d_->enqueue("attentionBlockBackward", k, 1, &global, &lsz);
        };
        if (split) {
            launch(kBlockSplitKernels[2], 1, blockSplitFloats(s, lsz, 2), true);
            launch(kBlockSplitKernels[3], s.heads, blockSplitFloats(s, lsz, 3), true);
        } else {
            launch("attention_block_backward", spread,
                   blockBackwardFloats(s, lsz, g, spread) + blockBackwardStaging(s, g), false);
        }
        if (direct) return;
        KernelEntry& r = d_->kernel("attention_block_reduce");
        d_->setArgs(r, cl_int(s.window), cl_int(s.heads), cl_int(s.keySize), cl_int(s.valueSize),
                    cl_int(s.w0), cl_int(s.models), cl_int(int(spm)), partial);
        setParams(r, 8, args.g);
        const size_t lr = d_->elemLocal(r);
        const size_t gr = roundUp(std::min(size_t(s.models) * total, lr * 65536), lr);
        d_->enqueue("attentionBlockBackward", r, 1, &gr, &lr);
    }
    // attention_block_backward's arguments (the split backward kernels take the same) up to the
    // activations; returns the next index.
    cl_uint setBackwardArgs(KernelEntry& k, const AttentionBlockBackwardArgs& args, int g,
                            bool direct, cl_mem partial) {
        const AttentionBlockShape& s = args.s;
        const BufRef dx = args.dx.empty() ? args.x : args.dx;  // a stand-in, never written
        d_->setArgs(k, cl_int(s.units), cl_int(s.window), cl_int(s.heads), cl_int(s.keySize),
                    cl_int(s.valueSize), cl_int(s.w0), cl_int(s.causal), cl_int(s.sequenceNorm),
                    cl_int(int(s.hidden)), cl_int(int(s.ffOut)),
                    cl_float(1.0f / std::sqrt(float(s.keySize))), cl_int(s.batch / s.models),
                    cl_int(g), cl_int(direct ? 1 : 0), Impl::mem(args.x), Impl::off(args.x),
                    Impl::mem(args.dy), Impl::off(args.dy), Impl::mem(dx), Impl::off(dx),
                    cl_int(args.dx.empty() ? 0 : 1));
        cl_uint i = 21;
        i = setParams(k, i, args.w);
        i = setParams(k, i, args.g);
        d_->setArg(k, i++, partial);
        return setActs(k, i, args.a);
    }
    // The 8 parameter buffers (W0's stand-ins without W0: never read), then their offsets and
    // per-model strides as two ulong8 (BlockParam order). Returns the next argument index.
    cl_uint setParams(KernelEntry& k, cl_uint i, const BlockParams& w) {
        cl_ulong8 off{}, stride{};
        for (int j = 0; j < kBlockParams; ++j) {
            const BufRef r = w.p[j].empty() ? w.p[kBlockQkvW] : w.p[j];
            d_->setArg(k, i++, Impl::mem(r));
            off.s[j] = w.p[j].empty() ? 0 : Impl::off(r);
            stride.s[j] = cl_ulong(w.stride[j]);
        }
        d_->setArg(k, i++, off);
        d_->setArg(k, i++, stride);
        return i;
    }

    void run(const NormForwardArgs& args) {
        if (args.rows <= 0 || args.cols <= 0) return;
        // No residual: x stands in for b and y for sum (neither is read nor written).
        d_->launchTeams("normForward", "norm_forward", size_t(args.rows), size_t(args.cols), 1,
                        cl_int(args.rows), cl_int(args.cols), cl_float(args.eps), Impl::mem(args.x),
                        Impl::off(args.x), Impl::mem(args.x), Impl::off(args.x), cl_int(0),
                        Impl::mem(args.y), Impl::off(args.y), Impl::mem(args.y), Impl::off(args.y),
                        Impl::mem(args.rstd), Impl::off(args.rstd));
    }

    void run(const AddNormForwardArgs& args) {
        if (args.rows <= 0 || args.cols <= 0) return;
        d_->launchTeams("addNormForward", "norm_forward", size_t(args.rows), size_t(args.cols), 1,
                        cl_int(args.rows), cl_int(args.cols), cl_float(args.eps), Impl::mem(args.a),
                        Impl::off(args.a), Impl::mem(args.b), Impl::off(args.b), cl_int(1),
                        Impl::mem(args.sum), Impl::off(args.sum), Impl::mem(args.y),
                        Impl::off(args.y), Impl::mem(args.rstd), Impl::off(args.rstd));
    }

    void run(const AddNormBackwardArgs& args) {
        if (args.rows <= 0 || args.cols <= 0) return;
        d_->launchTeams("addNormBackward", "norm_backward", size_t(args.rows), size_t(args.cols), 2,
                        cl_int(args.rows), cl_int(args.cols), Impl::mem(args.y), Impl::off(args.y),
                        Impl::mem(args.rstd), Impl::off(args.rstd), Impl::mem(args.dy),
                        Impl::off(args.dy), Impl::mem(args.dy2), Impl::off(args.dy2), cl_int(1),
                        Impl::mem(args.dx), Impl::off(args.dx));
    }

    void run(const NormBackwardArgs& args) {
        if (args.rows <= 0 || args.cols <= 0) return;
        // No second gradient: dy stands in for dy2 (not read) and is not written.
        d_->launchTeams("normBackward", "norm_backward", size_t(args.rows), size_t(args.cols), 2,
                        cl_int(args.rows), cl_int(args.cols), Impl::mem(args.y), Impl::off(args.y),
                        Impl::mem(args.rstd), Impl::off(args.rstd), Impl::mem(args.dy),
                        Impl::off(args.dy), Impl::mem(args.dy), Impl::off(args.dy), cl_int(0),
                        Impl::mem(args.dx), Impl::off(args.dx));
    }

    // ---------------------------------------------------------------------------------------------
    // Sliding windows

    void run(const UnfoldArgs& args) {
        const size_t n = size_t(args.batch) * args.positions * args.window;
        if (n == 0) return;
        d_->launch1d("unfold", "unfold_windows", n, cl_int(args.batch), cl_int(args.len),
                     cl_int(args.window), cl_int(args.step), cl_int(args.positions),
                     Impl::mem(args.x), Impl::off(args.x), Impl::mem(args.cols),
                     Impl::off(args.cols));
    }

    void run(const FoldArgs& args) {
        const size_t n = size_t(args.batch) * args.len;
        if (n == 0) return;
        d_->launch1d("fold", "fold_windows", n, cl_int(args.batch), cl_int(args.len),
                     cl_int(args.window), cl_int(args.step), cl_int(args.positions),
                     Impl::mem(args.dcols), Impl::off(args.dcols), Impl::mem(args.dx),
                     Impl::off(args.dx));
    }

    // ---------------------------------------------------------------------------------------------
    // Losses

    void run(const MseLossArgs& args) {
        if (args.rows <= 0 || args.cols <= 0) return;
        d_->launchRows("mseLoss", "mse_loss", size_t(args.rows), size_t(args.cols), 1,
                       cl_int(args.rows), cl_int(args.cols), Impl::mem(args.y), Impl::off(args.y),
                       Impl::mem(args.target), Impl::off(args.target), Impl::mem(args.dy),
                       Impl::off(args.dy), Impl::mem(args.loss), Impl::off(args.loss),
                       cl_float(args.gradScale));
    }

    void run(const SoftmaxCrossEntropyArgs& args) {
        if (args.rows <= 0 || args.cols <= 0) return;
        d_->launchRows("crossEntropy", "softmax_cross_entropy", size_t(args.rows),
                       size_t(args.cols), 2, cl_int(args.rows), cl_int(args.cols),
                       Impl::mem(args.logits), Impl::off(args.logits), Impl::mem(args.target),
                       Impl::off(args.target), Impl::mem(args.prob), Impl::off(args.prob),
                       Impl::mem(args.dy), Impl::off(args.dy), Impl::mem(args.loss),
                       Impl::off(args.loss), cl_float(args.gradScale));
    }

    // ---------------------------------------------------------------------------------------------
    // Optimizers

    void run(const SgdStepArgs& args) {
        if (args.n == 0) return;
        if (!args.hyper.empty()) {
            const BufRef s = args.skip.empty() ? args.w : args.skip;
            d_->launch1d("sgd", "sgd_step_models", args.n, cl_ulong(args.n),
                         cl_ulong(args.n / size_t(args.models)), Impl::mem(args.w),
                         Impl::off(args.w), Impl::mem(args.g), Impl::off(args.g),
                         Impl::mem(args.velocity), Impl::off(args.velocity), Impl::mem(args.hyper),
                         Impl::off(args.hyper), Impl::mem(s), Impl::off(s),
                         cl_int(args.skip.empty() ? 0 : 1));
            return;
        }
        const BufRef s =
            args.skip.empty() ? args.w : args.skip;  // any valid buffer when there is no flag
        d_->launch1d("sgd", "sgd_step", args.n, cl_ulong(args.n), Impl::mem(args.w),
                     Impl::off(args.w), Impl::mem(args.g), Impl::off(args.g),
                     Impl::mem(args.velocity), Impl::off(args.velocity), cl_float(args.lr),
                     cl_float(args.momentum), cl_float(args.weightDecay), Impl::mem(s),
                     Impl::off(s), cl_int(args.skip.empty() ? 0 : 1));
    }

    void run(const AdamStepArgs& args) {
        if (args.n == 0) return;
        if (!args.hyper.empty()) {
            const BufRef s = args.skip.empty() ? args.w : args.skip;
            d_->launch1d("adam", "adam_step_models", args.n, cl_ulong(args.n),
                         cl_ulong(args.n / size_t(args.models)), Impl::mem(args.w),
                         Impl::off(args.w), Impl::mem(args.g), Impl::off(args.g), Impl::mem(args.m),
                         Impl::off(args.m), Impl::mem(args.v), Impl::off(args.v),
                         Impl::mem(args.hyper), Impl::off(args.hyper), Impl::mem(s), Impl::off(s),
                         cl_int(args.skip.empty() ? 0 : 1));
            return;
        }
        // The same float constants as the CPU reference computes.
        const float step = args.lr / args.bc1;
        const float keep = 1.0f - args.lr * args.weightDecay;
        const float rbc2 = 1.0f / std::sqrt(args.bc2);
        d_->launch1d("adam", "adam_step", args.n, cl_ulong(args.n), Impl::mem(args.w),
                     Impl::off(args.w), Impl::mem(args.g), Impl::off(args.g), Impl::mem(args.m),
                     Impl::off(args.m), Impl::mem(args.v), Impl::off(args.v), cl_float(args.beta1),
                     cl_float(args.beta2), cl_float(args.eps), cl_float(step), cl_float(keep),
                     cl_float(rbc2), Impl::mem(args.skip.empty() ? args.w : args.skip),
                     Impl::off(args.skip.empty() ? args.w : args.skip),
                     cl_int(args.skip.empty() ? 0 : 1));
    }

    // ---------------------------------------------------------------------------------------------
    // Metrics

    void run(const ClipByGlobalNormArgs& a) {
        // The sum of squares is a tree per work-group (a strided loop per work-item first):
        // one work-group for up to kClipChunk values, else one per chunk of kClipChunk into
        // scratch, then one that adds those (one work-group over a whole network's gradient
        // took a third of the device time of a 1.6M-parameter training step). The scale kernel
        // reads the norm on the device: no host round trip.
        // A population: the same per model (work-group rows p), each slice with its own norm.
        constexpr size_t kClipChunk = 4096;
        const size_t models = size_t(a.models), slice = a.n / models;
        if (a.n == 0) {  // norm 0 (g may be an empty reference)
            d_->launch1d("clipByGlobalNorm", "fill_f32", models, Impl::mem(a.norm),
                         Impl::off(a.norm), cl_ulong(models), cl_float(0.0f));
            return;
        }
        if (slice <= kClipChunk) {
            d_->launchRows("clipByGlobalNorm", "clip_sum_squares", models, slice, 1,
                           cl_ulong(slice), Impl::mem(a.g), Impl::off(a.g), Impl::mem(a.norm),
                           Impl::off(a.norm));
        } else {
            const size_t groups = (slice + kClipChunk - 1) / kClipChunk;  // per model
            cl_mem partial = d_->ensureScratch(models * groups, "clipByGlobalNorm");
            d_->launchRows("clipByGlobalNorm", "clip_partial_squares", models * groups, kClipChunk,
                           1, cl_ulong(slice), cl_ulong(kClipChunk), Impl::mem(a.g), Impl::off(a.g),
                           partial, cl_ulong(groups));
            d_->launchRows("clipByGlobalNorm", "clip_norm_of_partials", models, groups, 1,
                           cl_ulong(groups), partial, Impl::mem(a.norm), Impl::off(a.norm));
        }
        if (!(a.maxNorm > 0)) return;
        d_->launch1d("clipByGlobalNorm", "clip_scale", a.n, cl_ulong(a.n), Impl::mem(a.g),
                     Impl::off(a.g), Impl::mem(a.norm), Impl::off(a.norm), cl_float(a.maxNorm),
                     cl_ulong(slice));
    }

    void run(const ScaleRowsArgs& a) {
        const size_t n = elems(a.rows, a.cols);
        if (n == 0) return;
        d_->launch1d("scaleRows", "scale_rows", n, cl_int(a.rows), cl_int(a.cols),
                     Impl::mem(a.scale), Impl::off(a.scale), Impl::mem(a.x), Impl::off(a.x));
    }

    void run(const DropoutForwardArgs& a) {
        if (a.n == 0) return;
        const bool bases = !a.bases.empty();
        const BufRef b = bases ? a.bases : a.x;  // any valid buffer when there are none
        d_->launch1d("dropoutForward", "dropout_forward", a.n, cl_ulong(a.n), cl_ulong(a.key),
                     cl_int(dropoutThreshold(a.rate)), cl_float(dropoutScale(a.rate)),
                     Impl::mem(a.x), Impl::off(a.x), Impl::mem(a.mask), Impl::off(a.mask),
                     Impl::mem(a.y), Impl::off(a.y), cl_int(bases ? 1 : 0),
                     cl_ulong(a.n / size_t(a.models)), Impl::mem(b), Impl::off(b),
                     cl_ulong(a.step));
    }

    void run(const DropoutBackwardArgs& a) {
        if (a.n == 0) return;
        d_->launch1d("dropoutBackward", "dropout_backward", a.n, cl_ulong(a.n), Impl::mem(a.mask),
                     Impl::off(a.mask), Impl::mem(a.dy), Impl::off(a.dy), Impl::mem(a.dx),
                     Impl::off(a.dx));
    }

    void run(const RecordOutcomesArgs& args) {
        const size_t r = size_t(std::max(args.rows, 0));
        if (args.rows <= 0 || args.cols <= 0) return;
        const BufRef codes =
            args.codeWeights.empty() ? args.pred : args.codeWeights;  // any valid buffer
        // One work-group over all rows (a batch is small); one per model of a population.
        const size_t models = size_t(args.models);
        d_->launchRows("recordOutcomes", "record_outcomes", models, r / models, 1,
                       cl_int(args.rows / args.models), cl_int(args.cols), Impl::mem(args.pred),
                       Impl::off(args.pred), Impl::mem(args.target), Impl::off(args.target),
                       Impl::mem(args.loss), Impl::off(args.loss), Impl::mem(args.log),
                       Impl::off(args.log), Impl::mem(args.flag), Impl::off(args.flag),
                       cl_float(args.batchIndex), Impl::mem(codes), Impl::off(codes),
                       cl_int(args.codeWeights.empty() ? 0 : 1));
    }

    // ---------------------------------------------------------------------------------------------
    // Lightweight convolution

    void run(const LightConvForwardArgs& args) {
        const size_t n = size_t(std::max(args.batch, 0)) * size_t(std::max(args.units, 0)) *
                         size_t(std::max(args.channels, 0));
        KernelEntry& taps = d_->kernel("lightconv_taps");
        d_->setArgs(taps, cl_int(args.models), cl_int(args.heads), cl_int(args.k),
                    cl_int(args.softmaxTaps), Impl::mem(args.weight), Impl::off(args.weight),
                    cl_ulong(args.weightStride), Impl::mem(args.wsm), Impl::off(args.wsm));
        const size_t tl = std::min<size_t>(d_->elemLocal(taps), 64);
        const size_t tg = roundUp(size_t(args.models) * size_t(args.heads), tl);
        d_->enqueue("lightConv", taps, 1, &tg, &tl);
        if (n == 0) return;
        d_->launch1d("lightConv", "lightconv_forward", n, cl_int(args.models), cl_int(args.batch),
                     cl_int(args.units), cl_int(args.channels), cl_int(args.heads), cl_int(args.k),
                     cl_int(args.padL), Impl::mem(args.x), Impl::off(args.x), Impl::mem(args.wsm),
                     Impl::off(args.wsm), Impl::mem(args.y), Impl::off(args.y));
    }

    void run(const LightConvBackwardArgs& args) {
        const size_t n = size_t(std::max(args.batch, 0)) * size_t(std::max(args.units, 0)) *
                         size_t(std::max(args.channels, 0));
        if (!args.dx.empty() && n > 0)
            d_->launch1d("lightConvBackward", "lightconv_backward_dx", n, cl_int(args.models),
                         cl_int(args.batch), cl_int(args.units), cl_int(args.channels),
                         cl_int(args.heads), cl_int(args.k), cl_int(args.padL), Impl::mem(args.wsm),
                         Impl::off(args.wsm), Impl::mem(args.dy), Impl::off(args.dy),
                         Impl::mem(args.dx), Impl::off(args.dx));
        // Tap gradient per (model, head, tap) into scratch, then through the optional softmax
        // into dw. A model's reduction has the length (so the work-group size) of a single one.
        const size_t taps = size_t(args.models) * size_t(args.heads) * args.k;
        cl_mem gw = d_->ensureScratch(taps, "lightConvBackward");
        const size_t perHead = n / size_t(args.heads) / size_t(args.models);
        d_->launchRows("lightConvBackward", "lightconv_tap_grad", taps, perHead, 1,
                       cl_int(args.models), cl_int(args.batch), cl_int(args.units),
                       cl_int(args.channels), cl_int(args.heads), cl_int(args.k), cl_int(args.padL),
                       Impl::mem(args.x), Impl::off(args.x), Impl::mem(args.dy), Impl::off(args.dy),
                       gw);
        KernelEntry& apply = d_->kernel("lightconv_weight_grad_apply");
        d_->setArgs(apply, cl_int(args.models), cl_int(args.heads), cl_int(args.k),
                    cl_int(args.softmaxTaps), gw, Impl::mem(args.wsm), Impl::off(args.wsm),
                    Impl::mem(args.dw), Impl::off(args.dw), cl_ulong(args.weightStride));
        const size_t al = std::min<size_t>(d_->elemLocal(apply), 64);
        const size_t ag = roundUp(size_t(args.models) * size_t(args.heads), al);
        d_->enqueue("lightConvBackward", apply, 1, &ag, &al);
    }
};

// The fused block's work-group size: a power of two (the sequence norm's reductions) that every
// block kernel and the device can run, at most 256 (or OpenClOptions::blockLocalSize).
size_t OpenClBackend::Impl::blockLocalSize() {
    const size_t wanted = blockLocalWanted > 0 ? size_t(blockLocalWanted) : 256;
    size_t cap = std::min({wanted, deviceMaxWg, maxItemSizes[0]});
    for (const char* name : kBlockKernels) cap = std::min(cap, kernel(name).maxWg);
    for (const char* name : kBlockSplitKernels) cap = std::min(cap, kernel(name).maxWg);
    return floorPow2(std::max<size_t>(1, cap));
}

// Local floats of attention_block_forward and _backward with the heads in groups of g (the
// layouts in their comments), without the staging area.
size_t cldetail::blockForwardFloats(const AttentionBlockShape& s, size_t lsz, int g) {
    const size_t u = size_t(s.units), w = size_t(s.window), q = size_t(s.qkvWidth()),
                 c = size_t(s.ctxWidth()), f = size_t(s.ffWidth());
    return 2 * u * w + u * c + std::max(u * q + size_t(g) * u * u, u * f) + lsz;
}
size_t cldetail::blockBackwardFloats(const AttentionBlockShape& s, size_t lsz, int g, int spread) {
    const size_t u = size_t(s.units), w = size_t(s.window), q = size_t(s.qkvWidth()),
                 c = size_t(s.ctxWidth()), f = size_t(s.ffWidth());
    // with spread > 1: a group's heads' dQKV columns gathered (cq in the kernel's comment)
    const size_t heads = size_t((s.heads + spread - 1) / spread);
    const size_t cq = spread > 1 ? u * heads * size_t(2 * s.keySize + s.valueSize) : 0;
    return 3 * u * w + u * c + std::max(u * f, u * q + size_t(g) * u * u) + 2 * lsz + cq;
}
// The forward stages one product's weight rows at a time (row stride K | 1): Wqkv [Q][W],
// W0 [W][C], W1 [F][W], W2 [W][F].
size_t cldetail::blockForwardStaging(const AttentionBlockShape& s) {
    const size_t w = size_t(s.window), q = size_t(s.qkvWidth()), c = size_t(s.ctxWidth()),
                 f = size_t(s.ffWidth());
    return std::max({q * (w | 1), f * (w | 1), w * (f | 1), s.w0 ? w * (c | 1) : 0});
}
// The backward stages one product's weights (W2, W1, W0, Wqkv) or activation rows (H1, X1, C,
// X: U rows each) at a time, and for the attention one group's Q, K and V columns.
size_t cldetail::blockBackwardStaging(const AttentionBlockShape& s, int g) {
    const size_t u = size_t(s.units), w = size_t(s.window), q = size_t(s.qkvWidth()),
                 c = size_t(s.ctxWidth()), f = size_t(s.ffWidth());
    const size_t group = u * size_t(g) * size_t(2 * s.keySize + s.valueSize);
    return std::max({group, f * w, q * w, u * f, s.w0 ? std::max(w * c, u * c) : 0});
}

// The split block's kernels (kernels/attention_block_split.cl; E = 2 D + Dv): fwd_heads X, the
// head's QKV columns, P_h and the staging of its Wqkv rows (or its context columns); fwd_rows X,
// X1, C then H1, the norm's reductions and the staging (W0, W1, W2); bwd_rows dR2, dZ2, dR1,
// dZ1 then dC, reductions and the staging (W2, H1, X1, W1, C, W0); bwd_heads dC_h, dQKV_h, P_h,
// dX's part, dR1, the staging (Q_h K_h V_h, X, Wqkv_h) and one int.
size_t cldetail::blockSplitFloats(const AttentionBlockShape& s, size_t lsz, int kernel) {
    const size_t u = size_t(s.units), w = size_t(s.window), c = size_t(s.ctxWidth()),
                 f = size_t(s.ffWidth()), dv = size_t(s.valueSize),
                 e = size_t(2 * s.keySize + s.valueSize);
    switch (kernel) {
        case 0:
            return u * w + u * e + u * u + std::max(e * (w | 1), u * dv);
        case 1:
            return 2 * u * w + std::max(u * c, u * f) + lsz +
                   std::max({s.w0 ? w * (c | 1) : 0, f * (w | 1), w * (f | 1)});
        case 2:
            return 3 * u * w + std::max(u * f, u * c) + 2 * lsz +
                   std::max({f * w, u * f, u * w, s.w0 ? std::max(w * c, u * c) : 0});
        default:
            return u * dv + u * e + u * u + 2 * u * w + std::max({u * e, u * w, e * w}) + 1;
    }
}

int cldetail::parseBlockSplit(const std::string& mode, const std::string& what) {
    if (mode == "0") return 0;
    if (mode == "1") return 1;
    if (mode.empty() || mode == "auto") return 2;
    throw ComputeError(what + " '" + mode + "' is not 0, 1 or auto");
}

namespace {
constexpr int kFusedBlockAutoSamples = 64;     // samples over all models, OpenClOptions::fused auto
constexpr int kSplitAutoSamplesPerModel = 64;  // blockSplit auto (blockSplitUsed)
}  // namespace

// The whole-block kernels where they fit; with fused auto only where all heads fit at once and
// up to 64 samples over all models: measured slower on the H100 with heads in groups
// (mql5-fractal-12x12: 308 against 440 samples/s per op at batch 1) and past 64 samples a launch
// (5x8, 128 models of one sample: 53,365 against 61,859); docs/performance.md.
bool OpenClBackend::Impl::blockWholeUsed(const AttentionBlockShape& s) {
    const int group = blockHeadGroup(s, blockLocalSize());
    if (group <= 0) return false;
    return fused == 2 || maxHeadGroup > 0 ||
           (group == s.heads && s.batch <= kFusedBlockAutoSamples);
}

// The split block: with blockSplit 1 wherever its kernels fit; auto where the whole-block
// kernels do not run (blockWholeUsed), the split kernels fit and a model has at most 64 samples
// a launch: its backward writes a sample's every parameter gradient and adds them up, and past
// that the per-op products were faster (H200, 2026-11-29 17:11-17:25, main ac26823, one model
// at batch 256, two runs each: mql5-fractal-12x12 split 57,787 / 58,225 against 67,644 / 68,065
// per op; 5x8 201,637 / 203,377 against 188,137 / 198,326). Measured on the H200
// (docs/decisions/fused-block-split.md, 2026-11-29, main 5fbe73d, samples/s): split beat per op
// where the whole block does not fit (mql5-fractal-12x12 b1 683 against 459, b64 35,560
// against 26,433) and where auto ran per op past 64 samples (5x8 b1, 128 models: 79,318
// against 66,199; the whole block forced there 70,314); the whole block beat split where it
// runs (5x8 b1 2,295 against 2,004, b64 107,005 against 104,060).
bool OpenClBackend::Impl::blockSplitUsed(const AttentionBlockShape& s) {
    if (fused == 0 || blockSplit == 0) return false;
    const size_t lsz = blockLocalSize(), budget = blockLocalBudget();
    for (int k = 0; k < 4; ++k)
        if (blockSplitFloats(s, lsz, k) > budget) return false;
    return blockSplit == 1 ||
           (!blockWholeUsed(s) && s.batch / std::max(s.models, 1) <= kSplitAutoSamplesPerModel);
}

size_t OpenClBackend::Impl::blockLocalBudget() const {
    // the local memory left beside what the kernels use themselves (kernels() is not const)
    size_t used = 0;
    for (const char* name : kBlockKernels) {
        const auto it = kernels.find(name);
        if (it != kernels.end()) used = std::max(used, it->second.staticLocal);
    }
    for (const char* name : kBlockSplitKernels) {
        const auto it = kernels.find(name);
        if (it != kernels.end()) used = std::max(used, it->second.staticLocal);
    }
    const size_t device = size_t(localMemSize),
                 bytes = blockLocalMemory > 0 ? std::min(blockLocalMemory, device) : device;
    const size_t total = bytes / sizeof(float);
    const size_t usedFloats = (used + sizeof(float) - 1) / sizeof(float);
    return total > usedFloats ? total - usedFloats : 0;
}

// The heads per group: all of them where both kernels' local memory (with their staging areas)
// fits, else the fewest groups that fit (heads spread evenly over them); 0 when even one head
// per group does not fit.
int OpenClBackend::Impl::blockHeadGroup(const AttentionBlockShape& s, size_t lsz) const {
    const size_t budget = blockLocalBudget();
    auto fits = [&](int g) {
        const size_t floats = std::max(blockForwardFloats(s, lsz, g) + blockForwardStaging(s),
                                       blockBackwardFloats(s, lsz, g) + blockBackwardStaging(s, g));
        return floats <= budget;
    };
    for (int groups = 1; groups <= s.heads; ++groups) {
        int g = (s.heads + groups - 1) / groups;
        if (maxHeadGroup > 0) g = std::min(g, maxHeadGroup);
        if (fits(g)) return g;
    }
    return 0;
}

// The backward's work-groups per sample: OpenClOptions::blockSpread (at most the heads), else
// one per head where batch x heads work-groups are at most the device's compute units (then
// each runs one head's attention and a share of the weight gradients beside the row-wise chain
// that every group of the sample computes; docs/decisions/fused-block-spread.md), else one.
// headGroup: the heads per group within a work-group. 1 where the spread layout does not fit.
int OpenClBackend::Impl::blockSpread(const AttentionBlockShape& s, size_t lsz,
                                     int& headGroup) const {
    headGroup = blockHeadGroup(s, lsz);
    int spread =
        blockSpreadWanted > 0 ? std::min(blockSpreadWanted, s.heads)
        : s.heads > 1 && size_t(s.batch) * size_t(s.heads) <= size_t(std::max(info.computeUnits, 1))
            ? s.heads
            : 1;
    if (spread <= 1) return 1;
    const int g = std::min(headGroup, (s.heads + spread - 1) / spread);
    if (blockBackwardFloats(s, lsz, g, spread) + blockBackwardStaging(s, g) > blockLocalBudget())
        return 1;
    headGroup = g;
    return spread;
}

bool OpenClBackend::fusesAttentionBlock(const AttentionBlockShape& s) const {
    if (d_->fused == 0 || s.hidden == Activation::Softmax || s.ffOut == Activation::Softmax)
        return false;
    if (s.units <= 0 || s.window <= 0 || s.heads <= 0 || s.keySize <= 0 || s.valueSize <= 0 ||
        (!s.w0 && s.ctxWidth() != s.window))
        return false;
    return d_->blockSplitUsed(s) || d_->blockWholeUsed(s);
}

bool OpenClBackend::splitsAttentionBlock(const AttentionBlockShape& s) const {
    return fusesAttentionBlock(s) && d_->blockSplitUsed(s);
}

namespace {
// Whether OpenClBackend::Ops implements the op of argument struct A.
template <typename A, typename = void>
struct ClHas : std::false_type {};
template <typename A>
struct ClHas<
    A, std::void_t<decltype(std::declval<OpenClBackend::Ops&>().run(std::declval<const A&>()))>>
    : std::true_type {};

template <typename A, typename F>
void runOp(OpenClBackend::Ops ops, const A& args, F&& fallback) {
    if constexpr (ClHas<A>::value)
        ops.run(args);
    else
        fallback();
}
}  // namespace

// Every op: Ops::run, or Backend's default (a composite, or "not supported") where there is none.
#define NNWB_CL_OP(Name, name)                                                 \
    void OpenClBackend::name##Impl(const Name##Args& args) {                   \
        runOp(Ops{*this, d_.get()}, args, [&] { Backend::name##Impl(args); }); \
    }
NNWB_OPS(NNWB_CL_OP)
#undef NNWB_CL_OP

}  // namespace nnwb
