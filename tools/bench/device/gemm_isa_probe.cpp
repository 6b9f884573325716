// Item 7 probe: which instruction set's tile leaves the k-ordered FMA chain for M = 1 products.
// For each ISA, C of M=1 N=17 K=7 (and N=16 K=9 alpha 2 beta 1) against two float references:
// "fma" = acc = fmaf(a, b, acc) over k ascending; "mul+add" = acc = acc + a * b rounded twice.
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>
#include "compute/CpuGemm.h"
using namespace nnwb::cpugemm;
int main() {
    struct C {
        int n, k;
        float alpha, beta;
        bool ta, tb;
    };
    C cases[] = {{17, 7, 1, 0, false, false},
                 {17, 33, 1, 0, false, false},
                 {16, 9, 2, 1, false, false},
                 {17, 7, 1, 0, true, true}};
    for (C c : cases) {
        std::mt19937 g(5);
        std::uniform_real_distribution<float> u(-1, 1);
        std::vector<float> a(c.k), b(size_t(c.k) * c.n), c0(c.n);
        for (auto& x : a) x = u(g);
        for (auto& x : b) x = u(g);
        for (auto& x : c0) x = u(g);
        std::vector<float> bT(b.size());  // tb: B stored n x k
        for (int k = 0; k < c.k; ++k)
            for (int j = 0; j < c.n; ++j) bT[size_t(j) * c.k + k] = b[size_t(k) * c.n + j];
        std::vector<float> rf(c.n), rm(c.n);
        for (int j = 0; j < c.n; ++j) {
            float f = 0, m = 0;
            for (int k = 0; k < c.k; ++k) {
                f = std::fmaf(a[k], b[size_t(k) * c.n + j], f);
                volatile float p = a[k] * b[size_t(k) * c.n + j];
                m = m + p;
            }
            rf[j] = c.beta != 0 ? std::fmaf(c.beta, c0[j], c.alpha * f) : c.alpha * f;
            rm[j] = c.beta != 0 ? std::fmaf(c.beta, c0[j], c.alpha * m) : c.alpha * m;
        }
        std::printf("N=%d K=%d alpha=%g beta=%g ta=%d tb=%d\n", c.n, c.k, c.alpha, c.beta, c.ta,
                    c.tb);
        for (Isa isa : {Isa::Generic, Isa::Avx2, Isa::Avx512}) {
            if (!setIsa(isa)) continue;
            std::vector<float> out = c0;
            Product<float> p;
            p.transA = c.ta;
            p.transB = c.tb;
            p.m = 1;
            p.n = c.n;
            p.k = c.k;
            p.alpha = c.alpha;
            p.beta = c.beta;
            p.a = a.data();
            p.b = c.tb ? bT.data() : b.data();
            p.c = out.data();
            p.lda = c.ta ? 1 : c.k;
            p.ldb = c.tb ? c.k : c.n;
            p.ldc = c.n;
            tile(p, 0, 1, 0, c.n);
            std::printf("  %-8s cols = fma-ref:", isaName(isa));
            for (int j = 0; j < c.n; ++j)
                std::printf("%c", out[j] == rf[j] ? 'F' : out[j] == rm[j] ? 'm' : '?');
            std::printf("\n");
        }
        setDefaultIsa();
    }
}
