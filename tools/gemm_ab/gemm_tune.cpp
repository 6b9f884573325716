// Tuning of nnwb's OpenCL gemm kernels on transformer-64's products (batch 256): for each
// product, every built gemm kernel (gemm_tiled* and gemm_reg_*) with each K split count that
// applies, timed, checked against gemm_tiled's result, and the backend's own choice; prints
// ms and TFLOP/s per product and the step's sum (6 blocks) for the choice and for the best.
// Run: gemm_tune opencl:P:D [TSM,TSN,TSK,WPTM,WPTN,LPAD ...] (the gemm_reg tilings to build;
// without any, the built-in list). Single-threaded command-line tool.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "compute/Backend.h"
#include "compute/OpenClBackend.h"
#include "compute/TensorView.h"
#include "tools/gemm_ab/AbShapes.h"

namespace {

using nnwb::ab::Shape;

void die(const std::string& m) {
    std::fprintf(stderr, "gemm_tune: %s\n", m.c_str());
    std::exit(1);
}

// Largest |x - ref| over the largest |ref|.
double relDiff(const std::vector<float>& x, const std::vector<float>& ref) {
    double d = 0, r = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        d = std::max(d, double(std::fabs(x[i] - ref[i])));
        r = std::max(r, double(std::fabs(ref[i])));
    }
    return r > 0 ? d / r : d;
}

struct Timed {
    std::string kernel;
    int splits = 0;
    double ms = 0;
};

}  // namespace

int main(int argc, char** argv) {
    const std::string id = argc > 1 ? argv[1] : "opencl:0:0";
    nnwb::OpenClOptions opt;
    for (int i = 2; i < argc; ++i) {
        std::array<int, 6> t{};
        if (std::sscanf(argv[i], "%d,%d,%d,%d,%d,%d", &t[0], &t[1], &t[2], &t[3], &t[4], &t[5]) !=
            6)
            die(std::string("tiling TSM,TSN,TSK,WPTM,WPTN,LPAD expected, got ") + argv[i]);
        opt.regTilings.push_back(t);
    }
    auto be = nnwb::OpenClBackend::create(id, opt);
    std::printf("device %s (%s)\n", be->info().name.c_str(), be->info().version.c_str());

    const size_t most = size_t(nnwb::ab::kRows) * 768;
    std::vector<float> host(most);
    for (size_t i = 0; i < most; ++i) host[i] = float((i * 2654435761u) % 1000) * 1e-3f - 0.5f;
    nnwb::Buffer A = be->alloc(most), B = be->alloc(most), C = be->alloc(most);
    be->upload(A, host.data(), most);
    be->upload(B, host.data(), most);

    double sumAuto = 0, sumBest = 0;
    for (const Shape& s : nnwb::ab::kTransformerShapes) {
        using M = nnwb::TensorView;
        const M a = s.ta ? M::matrix(A, s.k, s.m).t() : M::matrix(A, s.m, s.k);
        const M b = s.tb ? M::matrix(B, s.n, s.k).t() : M::matrix(B, s.k, s.n);
        const nnwb::GemmArgs g = nnwb::GemmArgs::product(a, b, M::matrix(C, s.m, s.n), s.beta);
        const size_t mn = size_t(s.m) * s.n;
        const double gf = 2.0 * s.m * s.n * s.k * 1e-9;
        // One product from C = host values (beta 1 reads them), its result downloaded.
        auto result = [&] {
            be->upload(C, host.data(), mn);
            be->gemm(g);
            std::vector<float> out(mn);
            be->download(C, out.data(), mn);
            return out;
        };
        auto time = [&] {
            return nnwb::ab::msPerCall([&] { be->gemm(g); }, [&] { be->synchronize(); }, 10, 0.15);
        };
        be->forceGemm("gemm_tiled", 0);
        const std::vector<float> ref = result();
        be->forceGemm("", 0);
        const double tAuto = time();
        std::printf("%-12s %6d %6d %6d  auto %8.4f ms %6.2f TFLOP/s\n", s.what, s.m, s.n, s.k,
                    tAuto, gf / tAuto);
        Timed best{"auto", 0, tAuto};
        for (const std::string& k : be->gemmKernels()) {
            if (k == "gemm_small") continue;
            std::vector<int> splits{1};
            if (s.k >= 4096)
                for (int sp : {4, 8, 16, 32}) splits.push_back(sp);
            for (int sp : splits) {
                be->forceGemm(k, sp);
                const double diff = relDiff(result(), ref);
                const double t = time();
                std::printf("    %-26s splits %2d %8.4f ms %6.2f TFLOP/s  diff %.1e%s\n", k.c_str(),
                            sp, t, gf / t, diff, diff > 1e-4 ? "  WRONG" : "");
                if (diff <= 1e-4 && t < best.ms) best = {k, sp, t};
            }
        }
        be->forceGemm("", 0);
        std::printf("    best %s splits %d: %.4f ms %.2f TFLOP/s (auto %.2fx of it)\n",
                    best.kernel.c_str(), best.splits, best.ms, gf / best.ms, tAuto / best.ms);
        sumAuto += tAuto;
        sumBest += best.ms;
    }
    std::printf("products of one step (6 blocks): auto %.3f ms, best per product %.3f ms\n",
                6 * sumAuto, 6 * sumBest);
    return 0;
}
