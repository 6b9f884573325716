// The population ops of compute/Ops.h (docs/decisions/population.md) as scenarios: each runs
// one op over P = 3 models either together (one call with `models`) or one by one (P calls of
// the single-model op on each model's slice) and returns every output it wrote, read back.
// tests/compute checks together == one by one bit for bit on the CPU; tests/parity checks the
// OpenCL devices against the CPU. Main thread only.
#pragma once

#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "common/TestUtil.h"
#include "compute/Backend.h"
#include "compute/DropoutMask.h"

namespace nnwb::test {

struct PopulationScenario {
    std::string name;
    // Runs the op on `be` together (true) or one model at a time (false); the outputs.
    std::function<std::vector<float>(Backend& be, bool together)> run;
};

namespace popdetail {

constexpr int kModels = 3;

// Device buffers of one scenario run, read back in the order they were declared as outputs.
struct Bufs {
    explicit Bufs(Backend& backend) : be(backend) {}
    Backend& be;
    std::deque<Buffer> all;  // a BufRef points at its Buffer: they must not move
    std::vector<std::pair<size_t, size_t>> outs;  // (index in all, count)
    BufRef in(const std::vector<float>& v) {
        all.push_back(be.alloc(v.size()));
        be.upload(all.back(), v.data(), v.size());
        return all.back();
    }
    BufRef out(const std::vector<float>& init) {
        BufRef r = in(init);
        outs.emplace_back(all.size() - 1, init.size());
        return r;
    }
    std::vector<float> read() {
        be.synchronize();
        std::vector<float> v;
        for (const auto& [i, n] : outs) {
            std::vector<float> part(n);
            be.download(all[i], part.data(), n);
            v.insert(v.end(), part.begin(), part.end());
        }
        return v;
    }
};

inline PopulationScenario biasActivation(Activation act, int rows, int cols) {
    return {"biasActivation act " + std::to_string(int(act)) + " rows " + std::to_string(rows) +
                " cols " + std::to_string(cols),
            [=](Backend& be, bool together) {
                const int P = kModels;
                const size_t stride = size_t(cols) + 4, per = size_t(rows) * cols;
                Bufs b(be);
                BufRef x = b.in(randomVector(P * per, 11, -2.0f, 2.0f));
                BufRef bias = b.in(randomVector(P * stride, 12));
                BufRef z = b.out(randomVector(P * per, 13)), y = b.out(randomVector(P * per, 14));
                if (together)
                    be.biasActivation({P * rows, cols, x, bias, z, y, act, P, stride});
                else
                    for (int p = 0; p < P; ++p)
                        be.biasActivation({rows, cols, x + p * per, bias + p * stride, z + p * per,
                                           y + p * per, act});
                return b.read();
            }};
}

inline PopulationScenario biasGradient(int rows, int cols, bool withActivation) {
    return {std::string(withActivation ? "activationBiasBackward" : "biasGradient") + " rows " +
                std::to_string(rows) + " cols " + std::to_string(cols),
            [=](Backend& be, bool together) {
                const int P = kModels;
                const size_t stride = size_t(cols) + 3, per = size_t(rows) * cols;
                Bufs b(be);
                BufRef z = b.in(randomVector(P * per, 21, -2.0f, 2.0f));
                BufRef y = b.in(randomVector(P * per, 22));
                BufRef dy = b.in(randomVector(P * per, 23));
                BufRef dz = b.out(randomVector(P * per, 24));
                BufRef db = b.out(randomVector(P * stride, 25));
                const Activation a = Activation::Tanh;
                if (together && withActivation)
                    be.activationBiasBackward({P * rows, cols, z, y, dy, dz, a, db, P, stride});
                else if (together)
                    be.biasGradient({P * rows, cols, dz, db, P, stride});
                for (int p = 0; p < P && !together; ++p) {
                    const size_t o = p * per;
                    if (withActivation)
                        be.activationBiasBackward(
                            {rows, cols, z + o, y + o, dy + o, dz + o, a, db + p * stride});
                    else
                        be.biasGradient({rows, cols, dz + o, db + p * stride});
                }
                return b.read();
            }};
}

// y = f(x W^T + b) per model; W [out][in] and b [out] of model p at p * stride (an arena).
inline PopulationScenario projection(int rows, int in, int out, Activation act) {
    return {
        "gemmBiasActivation rows " + std::to_string(rows) + " in " + std::to_string(in) + " out " +
            std::to_string(out),
        [=](Backend& be, bool together) {
            const int P = kModels;
            const size_t stride = size_t(out) * in + out + 5;
            const size_t px = size_t(rows) * in, pz = size_t(rows) * out;
            Bufs b(be);
            BufRef x = b.in(randomVector(P * px, 31));
            BufRef w = b.in(randomVector(P * stride, 32));
            BufRef z = b.out(randomVector(P * pz, 33)), y = b.out(randomVector(P * pz, 34));
            const size_t biasAt = size_t(out) * in;
            if (together) {
                const TensorView X = TensorView::perHead(x, P, 1, rows, in, in, px, 0);
                const TensorView W = TensorView::perHead(w, P, 1, out, in, in, stride, 0);
                const TensorView Z = TensorView::perHead(z, P, 1, rows, out, out, pz, 0);
                be.gemmBiasActivation({GemmArgs::product(X, W.t(), Z), w + biasAt, act, y, stride});
            } else {
                for (int p = 0; p < P; ++p) {
                    const BufRef wp = w + p * stride;
                    const GemmArgs g = GemmArgs::product(TensorView::matrix(x + p * px, rows, in),
                                                         TensorView::matrix(wp, out, in).t(),
                                                         TensorView::matrix(z + p * pz, rows, out));
                    be.gemmBiasActivation({g, wp + biasAt, act, y + p * pz});
                }
            }
            return b.read();
        }};
}

// Per-model hyper-parameters of the optimizer scenarios; model 1 is masked (skip flag 0).
inline std::vector<float> skipFlags() {
    return {-1.0f, 0.0f, -1.0f};
}

inline PopulationScenario adam(size_t slice) {
    return {"adamStep slice " + std::to_string(slice), [=](Backend& be, bool together) {
                const int P = kModels;
                const size_t n = P * slice;
                Bufs b(be);
                BufRef w = b.out(randomVector(n, 41));
                BufRef m = b.out(std::vector<float>(n, 0.0f)),
                       v = b.out(std::vector<float>(n, 0.0f));
                BufRef skip = b.in(skipFlags());
                const float lr[] = {1e-2f, 3e-3f, 5e-2f}, b1[] = {0.9f, 0.8f, 0.95f},
                            b2[] = {0.999f, 0.99f, 0.9f}, eps[] = {1e-8f, 1e-4f, 1e-6f},
                            wd[] = {0.0f, 1e-2f, 0.1f};
                for (int t = 1; t <= 3; ++t) {
                    BufRef g = b.in(randomVector(n, 41 + t, -2.0f, 2.0f));
                    std::vector<float> hyper;
                    for (int p = 0; p < P; ++p) {
                        const float bc1 = 1.0f - std::pow(b1[p], float(t)),
                                    bc2 = 1.0f - std::pow(b2[p], float(t));
                        hyper.insert(hyper.end(), {lr[p], b1[p], b2[p], eps[p], wd[p], bc1, bc2});
                        if (!together)
                            be.adamStep({slice, w + p * slice, g + p * slice, m + p * slice,
                                         v + p * slice, lr[p], b1[p], b2[p], eps[p], wd[p], bc1,
                                         bc2, skip + p});
                    }
                    if (together) {
                        AdamStepArgs a;
                        a.n = n;
                        a.w = w;
                        a.g = g;
                        a.m = m;
                        a.v = v;
                        a.skip = skip;
                        a.models = P;
                        a.hyper = b.in(hyper);
                        be.adamStep(a);
                    }
                }
                return b.read();
            }};
}

inline PopulationScenario sgd(size_t slice) {
    return {"sgdStep slice " + std::to_string(slice), [=](Backend& be, bool together) {
                const int P = kModels;
                const size_t n = P * slice;
                Bufs b(be);
                BufRef w = b.out(randomVector(n, 51)),
                       vel = b.out(randomVector(n, 52, -0.1f, 0.1f));
                BufRef skip = b.in(skipFlags());
                const std::vector<float> hyper = {0.05f, 0.9f,  0.0f, 0.1f, 0.5f,
                                                  1e-2f, 0.01f, 0.0f, 0.1f};
                BufRef h = b.in(hyper);
                for (int t = 0; t < 3; ++t) {
                    BufRef g = b.in(randomVector(n, 53 + t));
                    if (together) {
                        SgdStepArgs a;
                        a.n = n;
                        a.w = w;
                        a.g = g;
                        a.velocity = vel;
                        a.skip = skip;
                        a.models = P;
                        a.hyper = h;
                        be.sgdStep(a);
                        continue;
                    }
                    for (int p = 0; p < P; ++p)
                        be.sgdStep({slice, w + p * slice, g + p * slice, vel + p * slice,
                                    hyper[3 * p], hyper[3 * p + 1], hyper[3 * p + 2], skip + p});
                }
                return b.read();
            }};
}

// Model 0 under the limit, models 1 and 2 above it (clipped).
inline PopulationScenario clip(size_t slice, float maxNorm) {
    return {"clipByGlobalNorm slice " + std::to_string(slice) + " max " + std::to_string(maxNorm),
            [=](Backend& be, bool together) {
                const int P = kModels;
                std::vector<float> g = randomVector(P * slice, 61);
                for (size_t i = 0; i < slice; ++i) {
                    g[i] *= 0.01f;
                    g[2 * slice + i] *= 3.0f;
                }
                Bufs b(be);
                BufRef gb = b.out(g), norm = b.out(std::vector<float>(P, -1.0f));
                if (together) {
                    ClipByGlobalNormArgs a{P * slice, gb, maxNorm, norm};
                    a.models = P;
                    be.clipByGlobalNorm(a);
                } else {
                    for (int p = 0; p < P; ++p)
                        be.clipByGlobalNorm({slice, gb + p * slice, maxNorm, norm + p});
                }
                return b.read();
            }};
}

inline PopulationScenario dropout(size_t slice, float rate) {
    return {"dropoutForward slice " + std::to_string(slice) + " rate " + std::to_string(rate),
            [=](Backend& be, bool together) {
                const int P = kModels;
                const uint64_t step = 7;
                const uint64_t bases[] = {dropoutMix(1) + 2, dropoutMix(0xFFFFFFFFFFFFull), 3};
                Bufs b(be);
                BufRef x = b.in(randomVector(P * slice, 71));
                BufRef mask = b.out(randomVector(P * slice, 72)),
                       y = b.out(randomVector(P * slice, 73));
                if (together) {
                    std::vector<float> limbs(4 * P);
                    for (int p = 0; p < P; ++p) splitKeyLimbs(bases[p], limbs.data() + 4 * p);
                    DropoutForwardArgs a{P * slice, rate, 0, x, mask, y};
                    a.models = P;
                    a.bases = b.in(limbs);
                    a.step = step;
                    be.dropoutForward(a);
                } else {
                    for (int p = 0; p < P; ++p)
                        be.dropoutForward({slice, rate, dropoutKey(bases[p], step), x + p * slice,
                                           mask + p * slice, y + p * slice});
                }
                return b.read();
            }};
}

// Model 1 has a non-finite loss (its flag is set); model 2's flag is set already (kept).
inline PopulationScenario outcomes(int rows, int cols) {
    return {"recordOutcomes rows " + std::to_string(rows), [=](Backend& be, bool together) {
                const int P = kModels;
                const size_t per = size_t(rows) * cols;
                std::vector<float> loss = randomVector(P * rows, 81, 0.0f, 2.0f);
                loss[rows + rows / 2] = INFINITY;
                loss[2 * rows] = INFINITY;
                Bufs b(be);
                BufRef pred = b.in(randomVector(P * per, 82)),
                       target = b.in(randomVector(P * per, 83, 0.0f, 1.0f));
                BufRef lossB = b.in(loss), codes = b.in(std::vector<float>(cols, 10.0f));
                BufRef log = b.out(std::vector<float>(2 * P * rows, 0.0f));
                BufRef flag = b.out({-1.0f, -1.0f, 5.0f});
                if (together) {
                    RecordOutcomesArgs a{P * rows, cols, pred, target, lossB,
                                         log,      flag, 9.0f, codes};
                    a.models = P;
                    be.recordOutcomes(a);
                } else {
                    for (int p = 0; p < P; ++p)
                        be.recordOutcomes({rows, cols, pred + p * per, target + p * per,
                                           lossB + size_t(p) * rows, log + 2 * size_t(p) * rows,
                                           flag + p, 9.0f, codes});
                }
                return b.read();
            }};
}

}  // namespace popdetail

// Every scenario: sizes that take each kernel path (fused and composed, one work-group and
// partial sums, one chunk and several).
// Light-conv forward then backward (dx and the tap gradient) per model; model p's taps at
// p * stride of an arena-like buffer, its samples the p-th block of the batch.
inline PopulationScenario lightConv(int batch, int units, int channels, int heads, int k,
                                    bool softmaxTaps) {
    using namespace popdetail;
    return {"lightConv batch " + std::to_string(batch) + " units " + std::to_string(units) + " k " +
                std::to_string(k) + (softmaxTaps ? " softmax" : ""),
            [=](Backend& be, bool together) {
                const int P = kModels, padL = k / 2;
                const size_t taps = size_t(heads) * k, stride = taps + 3;
                const size_t per = size_t(batch) * units * channels;
                Bufs b(be);
                BufRef x = b.in(randomVector(P * per, 81, -2.0f, 2.0f));
                BufRef w = b.in(randomVector(P * stride, 82, -1.0f, 1.0f));
                BufRef dy = b.in(randomVector(P * per, 83));
                BufRef wsm = b.out(randomVector(P * taps, 84));
                BufRef y = b.out(randomVector(P * per, 85)), dx = b.out(randomVector(P * per, 86));
                BufRef dw = b.out(randomVector(P * stride, 87));
                if (together) {
                    LightConvForwardArgs f{P * batch,   units, channels, heads, k, padL,
                                           softmaxTaps, x,     w,        wsm,   y};
                    f.models = P;
                    f.weightStride = stride;
                    be.lightConvForward(f);
                    LightConvBackwardArgs g{P * batch, units,       channels, heads, k,
                                            padL,      softmaxTaps, x,        w,     wsm,
                                            dy,        dx,          dw};
                    g.models = P;
                    g.weightStride = stride;
                    be.lightConvBackward(g);
                    return b.read();
                }
                for (int p = 0; p < P; ++p) {
                    const size_t o = p * per;
                    be.lightConvForward({batch, units, channels, heads, k, padL, softmaxTaps, x + o,
                                         w + p * stride, wsm + p * taps, y + o});
                    be.lightConvBackward({batch, units, channels, heads, k, padL, softmaxTaps,
                                          x + o, w + p * stride, wsm + p * taps, dy + o, dx + o,
                                          dw + p * stride});
                }
                return b.read();
            }};
}

inline std::vector<PopulationScenario> populationScenarios() {
    using namespace popdetail;
    std::vector<PopulationScenario> s;
    for (Activation a : {Activation::None, Activation::Tanh, Activation::Softmax})
        for (auto [r, c] : {std::pair{1, 1}, std::pair{5, 7}, std::pair{70, 33}})
            s.push_back(biasActivation(a, r, c));
    for (auto [r, c] : {std::pair{1, 3}, std::pair{5, 7}, std::pair{300, 5}, std::pair{3000, 9}}) {
        s.push_back(biasGradient(r, c, false));
        s.push_back(biasGradient(r, c, true));
    }
    s.push_back(projection(1, 8, 5, Activation::Tanh));
    s.push_back(projection(9, 12, 7, Activation::Relu));
    s.push_back(projection(64, 33, 40, Activation::None));
    for (size_t n : {size_t(1), size_t(37), size_t(5003)}) {
        s.push_back(adam(n));
        s.push_back(sgd(n));
    }
    for (size_t n : {size_t(1), size_t(37), size_t(4097), size_t(12289)})
        s.push_back(clip(n, 1.0f));
    s.push_back(clip(37, 0.0f));  // measure only
    for (float rate : {0.0f, 0.3f, 0.9f}) {
        s.push_back(dropout(1, rate));
        s.push_back(dropout(1001, rate));
    }
    s.push_back(outcomes(1, 3));
    s.push_back(outcomes(17, 3));
    s.push_back(lightConv(1, 5, 4, 2, 3, false));
    s.push_back(lightConv(3, 9, 6, 3, 5, true));
    s.push_back(lightConv(20, 31, 8, 2, 7, true));
    return s;
}

}  // namespace nnwb::test
