// The Backend ops of OpenClBackend: argument checks mirroring CpuBackend, then kernel launches
// (kernels/*.cl). No op computes on the host.
#include <cmath>

#include "compute/DropoutMask.h"
#include "compute/OpenClBackend.h"
#include "compute/OpenClBackendImpl.h"

namespace nnwb {

using namespace cldetail;

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

// The fused bias/activation epilogue of gemmBiasActivation.
struct OpenClBackend::Epilogue {
    BufRef bias, y;
    Activation act;
};

void OpenClBackend::gemm(const GemmArgs& g) {
    gemmWith(g, nullptr);
}

void OpenClBackend::gemmBiasActivation(const GemmArgs& g, BufRef bias, Activation act, BufRef y) {
    if (act == Activation::Softmax) {  // a per-row activation: not an element-wise epilogue
        Backend::gemmBiasActivation(g, bias, act, y);
        return;
    }
    checkProjection(g);
    const size_t n = size_t(std::max(g.m, 0)) * size_t(std::max(g.n, 0));
    if (!bias.empty()) d_->check(bias, size_t(std::max(g.n, 0)), "gemmBiasActivation bias");
    d_->check(y, n, "gemmBiasActivation y");
    const Epilogue e{bias, y, act};
    gemmWith(g, &e);
}

void OpenClBackend::gemmWith(const GemmArgs& g, const Epilogue* epi) {
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
    const size_t batches = size_t(g.batch0) * size_t(g.batch1);
    const size_t mn = size_t(M) * size_t(N);

    // Choose the kernel: tiny products one work-item per element; otherwise the largest
    // tiling that gives enough work-groups to fill the device, splitting K when even the
    // smallest tiling gives too few and K is long (weight gradients over a whole batch).
    std::string name = d_->forcedGemm;
    if (name.empty()) name = mn <= 1024 && kk <= 64 ? "gemm_small" : "";
    const GemmVariant* v = nullptr;
    int splits = 1;
    if (name != "gemm_small") {
        const size_t target = 2 * size_t(std::max(d_->info.computeUnits, 1));
        auto tilesOf = [&](const GemmConfig& c) {
            return size_t((M + c.tsm - 1) / c.tsm) * size_t((N + c.tsn - 1) / c.tsn) * batches;
        };
        auto splitsFor = [&](size_t tiles) {
            const size_t most = size_t(std::max(kk / 64, 1));  // at least 64 values of K each
            return tiles >= target ? size_t(1) : std::min(most, (target + tiles - 1) / tiles);
        };
        size_t bestWork = 0;
        for (const GemmVariant& cand : d_->gemmVariants) {
            if (!name.empty() && cand.kernel != name) continue;
            const size_t tiles = tilesOf(cand.config);
            const size_t sp = splitsFor(tiles);
            if (!name.empty() || tiles * sp >= target) {
                v = &cand;
                splits = int(sp);
                break;
            }
            if (tiles * sp > bestWork) {  // none fills the device: the one with most groups
                bestWork = tiles * sp;
                v = &cand;
                splits = int(sp);
            }
        }
        if (!v) throw ComputeError("gemm: no gemm kernel '" + name + "' on " + d_->info.name);
        if (d_->forcedSplits > 0) splits = std::min(d_->forcedSplits, std::max(kk, 1));
        if (batches * size_t(splits) > 65535 * 64) splits = 1;  // keep the grid reasonable
    }
    if (epi && splits > 1) splits = 1;  // the epilogue needs the whole sum in one pass
    // Epilogue buffers (C's buffer stands in for missing ones; the kernel does not touch them).
    const BufRef eBias = epi && !epi->bias.empty() ? epi->bias : g.c;
    const BufRef eY = epi ? epi->y : g.c;
    if (!v) {
        KernelEntry& k = d_->kernel("gemm_small");
        const size_t total = batches * mn;
        d_->setArgs(k, cl_int(M), cl_int(N), cl_int(kk), cl_float(g.alpha), cl_float(g.beta),
                    cl_int(g.transA), cl_int(g.transB), Impl::mem(a), Impl::off(a),
                    cl_int(g.lda), cl_ulong(g.strideA0), cl_ulong(g.strideA1), Impl::mem(b),
                    Impl::off(b), cl_int(g.ldb), cl_ulong(g.strideB0), cl_ulong(g.strideB1),
                    Impl::mem(g.c), Impl::off(g.c), cl_int(g.ldc), cl_ulong(g.strideC0),
                    cl_ulong(g.strideC1), cl_int(g.batch1), cl_ulong(total), cl_int(epi ? 1 : 0),
                    Impl::mem(eBias), Impl::off(eBias), cl_int(epi && !epi->bias.empty()),
                    Impl::mem(eY), Impl::off(eY), cl_int(epi ? int(epi->act) : 0));
        const size_t local = d_->elemLocal(k);
        const size_t global = roundUp(total, local);
        d_->enqueue("gemm", k, 1, &global, &local);
        return;
    }
    const GemmConfig& c = v->config;
    const int kChunk = splits > 1 ? int(roundUp(size_t((kk + splits - 1) / splits), size_t(c.tsk)))
                                  : std::max(kk, 1);
    if (splits > 1) splits = (kk + kChunk - 1) / kChunk;
    cl_mem partial = splits > 1 ? d_->ensureScratch(batches * size_t(splits) * mn, "gemm")
                                : Impl::mem(g.c);
    KernelEntry& k = d_->kernel(v->kernel.c_str());
    d_->setArgs(k, cl_int(M), cl_int(N), cl_int(kk), cl_float(g.alpha), cl_float(g.beta),
                cl_int(g.transA), cl_int(g.transB), Impl::mem(a), Impl::off(a), cl_int(g.lda),
                cl_ulong(g.strideA0), cl_ulong(g.strideA1), Impl::mem(b), Impl::off(b),
                cl_int(g.ldb), cl_ulong(g.strideB0), cl_ulong(g.strideB1), Impl::mem(g.c),
                Impl::off(g.c), cl_int(g.ldc), cl_ulong(g.strideC0), cl_ulong(g.strideC1),
                cl_int(g.batch1), cl_int(splits), cl_int(kChunk), partial, cl_int(epi ? 1 : 0),
                Impl::mem(eBias), Impl::off(eBias), cl_int(epi && !epi->bias.empty()),
                Impl::mem(eY), Impl::off(eY), cl_int(epi ? int(epi->act) : 0));
    const size_t local[3] = {c.threadsN(), c.threadsM(), 1};
    const size_t global[3] = {size_t((N + c.tsn - 1) / c.tsn) * c.threadsN(),
                              size_t((M + c.tsm - 1) / c.tsm) * c.threadsM(),
                              batches * size_t(splits)};
    d_->enqueue("gemm", k, 3, global, local);
    if (splits > 1) {
        KernelEntry& r = d_->kernel("gemm_reduce_splits");
        const size_t total = batches * mn;
        d_->setArgs(r, cl_int(M), cl_int(N), cl_int(splits), cl_float(g.alpha),
                    cl_float(g.beta), partial, Impl::mem(g.c), Impl::off(g.c), cl_int(g.ldc),
                    cl_ulong(g.strideC0), cl_ulong(g.strideC1), cl_int(g.batch1),
                    cl_ulong(total));
        const size_t lr = d_->elemLocal(r);
        const size_t gr = roundUp(total, lr);
        d_->enqueue("gemm", r, 1, &gr, &lr);
    }
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
        // The attention softmax backward with scale 1: dz = y * (dy - sum(dy * y)).
        d_->launchRows("activationBackward", "softmax_backward", size_t(rows), size_t(cols), 1,
                       cl_int(rows), cl_int(cols), cl_float(1.0f), Impl::mem(y), Impl::off(y),
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
    biasGradientWith(rows, cols, dz, db, nullptr, dz, dz, dz);
}

void OpenClBackend::activationBiasBackward(int rows, int cols, BufRef z, BufRef y, BufRef dy,
                                           BufRef dz, Activation act, BufRef db) {
    // Fused only for short columns (small batches), where launches dominate: the fused kernel
    // spreads rows over few work-groups, which loses to the element-wise kernel on tall inputs.
    if (act == Activation::Softmax || rows > 256) {
        Backend::activationBiasBackward(rows, cols, z, y, dy, dz, act, db);
        return;
    }
    const size_t n = size_t(std::max(rows, 0)) * size_t(std::max(cols, 0));
    d_->check(z, n, "activationBiasBackward z");
    d_->check(y, n, "activationBiasBackward y");
    d_->check(dy, n, "activationBiasBackward dy");
    d_->check(dz, n, "activationBiasBackward dz");
    d_->check(db, size_t(std::max(cols, 0)), "activationBiasBackward db");
    biasGradientWith(rows, cols, dz, db, &act, z, y, dy);
}

void OpenClBackend::biasGradientWith(int rows, int cols, BufRef dz, BufRef db,
                                     const Activation* act, BufRef z, BufRef y, BufRef dy) {
    if (rows <= 0 || cols <= 0) return;
    KernelEntry& k = d_->kernel("bias_gradient");
    const size_t cap = d_->rowCap(k);
    const size_t lx = std::min<size_t>({cap, 32, d_->maxItemSizes[0]});
    const size_t ly = floorPow2(std::max<size_t>(1, std::min(cap / lx, d_->maxItemSizes[1])));
    // Enough groups to fill the device: split the rows into chunks of at least 64 per lane
    // set when the columns alone give too few groups.
    const size_t groupsX = (size_t(cols) + lx - 1) / lx;
    const size_t target = 2 * size_t(std::max(d_->info.computeUnits, 1));
    size_t chunks = groupsX >= target ? 1 : (target + groupsX - 1) / groupsX;
    chunks = std::max<size_t>(1, std::min(chunks, size_t(rows) / (64 * ly)));
    const int rowChunk = int((size_t(rows) + chunks - 1) / chunks);
    chunks = (size_t(rows) + size_t(rowChunk) - 1) / size_t(rowChunk);
    cl_mem partial =
        chunks > 1 ? d_->ensureScratch(chunks * size_t(cols), "biasGradient") : Impl::mem(db);
    d_->setArgs(k, cl_int(rows), cl_int(cols), Impl::mem(dz), Impl::off(dz), Impl::mem(db),
                Impl::off(db), cl_int(rowChunk), partial, cl_int(act ? int(*act) : -1),
                Impl::mem(z), Impl::off(z), Impl::mem(y), Impl::off(y), Impl::mem(dy),
                Impl::off(dy), LocalMem{lx * ly * sizeof(float)});
    const size_t local[2] = {lx, ly};
    const size_t global[2] = {roundUp(size_t(cols), lx), chunks * ly};
    d_->enqueue("biasGradient", k, 2, global, local);
    if (chunks > 1) {  // db += sum of the chunks (the split-K reduction of gemm)
        KernelEntry& r = d_->kernel("gemm_reduce_splits");
        const size_t total = size_t(cols);
        d_->setArgs(r, cl_int(1), cl_int(cols), cl_int(chunks), cl_float(1.0f), cl_float(1.0f),
                    partial, Impl::mem(db), Impl::off(db), cl_int(cols), cl_ulong(0),
                    cl_ulong(0), cl_int(1), cl_ulong(total));
        const size_t lr = d_->elemLocal(r);
        const size_t gr = roundUp(total, lr);
        d_->enqueue("biasGradient", r, 1, &gr, &lr);
    }
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
    // No residual: x stands in for b and y for sum (neither is read nor written).
    d_->launchRows("normForward", "norm_forward", size_t(rows), size_t(cols), 1, cl_int(rows),
                   cl_int(cols), cl_float(eps), Impl::mem(x), Impl::off(x), Impl::mem(x),
                   Impl::off(x), cl_int(0), Impl::mem(y), Impl::off(y), Impl::mem(y),
                   Impl::off(y), Impl::mem(rstd), Impl::off(rstd));
}

void OpenClBackend::addNormForward(int rows, int cols, float eps, BufRef a, BufRef b, BufRef sum,
                                   BufRef y, BufRef rstd) {
    const size_t n = size_t(std::max(rows, 0)) * size_t(std::max(cols, 0));
    d_->check(a, n, "addNormForward a");
    d_->check(b, n, "addNormForward b");
    d_->check(sum, n, "addNormForward sum");
    d_->check(y, n, "addNormForward y");
    d_->check(rstd, size_t(std::max(rows, 0)), "addNormForward rstd");
    if (rows <= 0 || cols <= 0) return;
    d_->launchRows("addNormForward", "norm_forward", size_t(rows), size_t(cols), 1, cl_int(rows),
                   cl_int(cols), cl_float(eps), Impl::mem(a), Impl::off(a), Impl::mem(b),
                   Impl::off(b), cl_int(1), Impl::mem(sum), Impl::off(sum), Impl::mem(y),
                   Impl::off(y), Impl::mem(rstd), Impl::off(rstd));
}

void OpenClBackend::addNormBackward(int rows, int cols, BufRef y, BufRef rstd, BufRef dy,
                                    BufRef dy2, BufRef dx) {
    const size_t n = size_t(std::max(rows, 0)) * size_t(std::max(cols, 0));
    d_->check(y, n, "addNormBackward y");
    d_->check(dy, n, "addNormBackward dy");
    d_->check(dy2, n, "addNormBackward dy2");
    d_->check(dx, n, "addNormBackward dx");
    d_->check(rstd, size_t(std::max(rows, 0)), "addNormBackward rstd");
    if (rows <= 0 || cols <= 0) return;
    d_->launchRows("addNormBackward", "norm_backward", size_t(rows), size_t(cols), 2,
                   cl_int(rows), cl_int(cols), Impl::mem(y), Impl::off(y), Impl::mem(rstd),
                   Impl::off(rstd), Impl::mem(dy), Impl::off(dy), Impl::mem(dy2), Impl::off(dy2),
                   cl_int(1), Impl::mem(dx), Impl::off(dx));
}

void OpenClBackend::normBackward(int rows, int cols, BufRef y, BufRef rstd, BufRef dy, BufRef dx) {
    const size_t n = size_t(std::max(rows, 0)) * size_t(std::max(cols, 0));
    d_->check(y, n, "normBackward y");
    d_->check(dy, n, "normBackward dy");
    d_->check(dx, n, "normBackward dx");
    d_->check(rstd, size_t(std::max(rows, 0)), "normBackward rstd");
    if (rows <= 0 || cols <= 0) return;
    // No second gradient: dy stands in for dy2 (not read) and is not written.
    d_->launchRows("normBackward", "norm_backward", size_t(rows), size_t(cols), 2, cl_int(rows),
                   cl_int(cols), Impl::mem(y), Impl::off(y), Impl::mem(rstd), Impl::off(rstd),
                   Impl::mem(dy), Impl::off(dy), Impl::mem(dy), Impl::off(dy), cl_int(0),
                   Impl::mem(dx), Impl::off(dx));
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
                            float weightDecay, BufRef skip) {
    d_->check(w, n, "sgd w");
    d_->check(g, n, "sgd g");
    d_->check(velocity, n, "sgd velocity");
    if (!skip.empty()) d_->check(skip, 1, "sgd skip flag");
    if (n == 0) return;
    const BufRef s = skip.empty() ? w : skip;  // any valid buffer when there is no flag
    d_->launch1d("sgd", "sgd_step", n, cl_ulong(n), Impl::mem(w), Impl::off(w), Impl::mem(g),
                 Impl::off(g), Impl::mem(velocity), Impl::off(velocity), cl_float(lr),
                 cl_float(momentum), cl_float(weightDecay), Impl::mem(s), Impl::off(s),
                 cl_int(skip.empty() ? 0 : 1));
}

void OpenClBackend::adamStep(size_t n, BufRef w, BufRef g, BufRef m, BufRef v, float lr,
                             float beta1, float beta2, float eps, float weightDecay, float bc1,
                             float bc2, BufRef skip) {
    if (!skip.empty()) d_->check(skip, 1, "adam skip flag");
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
                 cl_float(rbc2), Impl::mem(skip.empty() ? w : skip),
                 Impl::off(skip.empty() ? w : skip), cl_int(skip.empty() ? 0 : 1));
}

// ---------------------------------------------------------------------------------------------
// Metrics

void OpenClBackend::clipByGlobalNorm(size_t n, BufRef g, float maxNorm, BufRef norm) {
    d_->check(g, n, "clipByGlobalNorm g");
    d_->check(norm, 1, "clipByGlobalNorm norm");
    // One work-group sums the squares (a strided loop per work-item, then a tree) and writes
    // the norm; the scale kernel reads it on the device: no host round trip.
    d_->launchRows("clipByGlobalNorm", "clip_sum_squares", 1, std::max<size_t>(n, 1), 1,
                   cl_ulong(n), Impl::mem(g), Impl::off(g), Impl::mem(norm), Impl::off(norm));
    if (n == 0 || !(maxNorm > 0)) return;
    d_->launch1d("clipByGlobalNorm", "clip_scale", n, cl_ulong(n), Impl::mem(g), Impl::off(g),
                 Impl::mem(norm), Impl::off(norm), cl_float(maxNorm));
}

void OpenClBackend::scaleRows(int rows, int cols, BufRef scale, BufRef x) {
    const size_t r = size_t(std::max(rows, 0)), c = size_t(std::max(cols, 0));
    d_->check(scale, r, "scaleRows scale");
    d_->check(x, r * c, "scaleRows x");
    if (r * c == 0) return;
    d_->launch1d("scaleRows", "scale_rows", r * c, cl_int(rows), cl_int(cols), Impl::mem(scale),
                 Impl::off(scale), Impl::mem(x), Impl::off(x));
}

// ---------------------------------------------------------------------------------------------
// Dropout

void OpenClBackend::dropoutForward(size_t n, float rate, uint64_t key, BufRef x, BufRef mask,
                                   BufRef y) {
    checkDropoutRate(rate);
    d_->check(x, n, "dropoutForward x");
    d_->check(mask, n, "dropoutForward mask");
    d_->check(y, n, "dropoutForward y");
    if (n == 0) return;
    d_->launch1d("dropoutForward", "dropout_forward", n, cl_ulong(n), cl_ulong(key),
                 cl_int(dropoutThreshold(rate)), cl_float(dropoutScale(rate)), Impl::mem(x),
                 Impl::off(x), Impl::mem(mask), Impl::off(mask), Impl::mem(y), Impl::off(y));
}

void OpenClBackend::dropoutBackward(size_t n, BufRef mask, BufRef dy, BufRef dx) {
    d_->check(mask, n, "dropoutBackward mask");
    d_->check(dy, n, "dropoutBackward dy");
    d_->check(dx, n, "dropoutBackward dx");
    if (n == 0) return;
    d_->launch1d("dropoutBackward", "dropout_backward", n, cl_ulong(n), Impl::mem(mask),
                 Impl::off(mask), Impl::mem(dy), Impl::off(dy), Impl::mem(dx), Impl::off(dx));
}

void OpenClBackend::recordOutcomes(int rows, int cols, BufRef pred, BufRef target, BufRef loss,
                                   BufRef log, BufRef flag, float batchIndex) {
    const size_t r = size_t(std::max(rows, 0)), c = size_t(std::max(cols, 0));
    d_->check(pred, r * c, "recordOutcomes pred");
    d_->check(target, r * c, "recordOutcomes target");
    d_->check(loss, r, "recordOutcomes loss");
    d_->check(log, 2 * r, "recordOutcomes log");
    d_->check(flag, 1, "recordOutcomes flag");
    if (rows <= 0 || cols <= 0) return;
    // One work-group over all rows (a batch is small).
    d_->launchRows("recordOutcomes", "record_outcomes", 1, r, 1, cl_int(rows), cl_int(cols),
                   Impl::mem(pred), Impl::off(pred), Impl::mem(target), Impl::off(target),
                   Impl::mem(loss), Impl::off(loss), Impl::mem(log), Impl::off(log),
                   Impl::mem(flag), Impl::off(flag), cl_float(batchIndex));
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
