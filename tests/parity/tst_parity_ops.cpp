// Parity of the element-wise, activation, softmax, norm, window, loss and optimizer ops:
// every OpenCL device against the CpuBackend reference, odd sizes, fixed seeds, guard values
// around every buffer (non-zero offsets). Tolerance unless stated: 1e-5 abs + 1e-4 rel.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "parity/GemmEpilogueCase.h"
#include "parity/ParityHarness.h"

using namespace nnwb;
using namespace nnwb::test;

namespace {

const size_t kSizes[] = {1, 3, 7, 20, 33, 65, 130, 1000, 70001};
const std::pair<int, int> kShapes[] = {{1, 1},  {1, 7},    {3, 3},    {7, 20},  {20, 33},
                                       {33, 7}, {65, 130}, {130, 65}, {5, 300}, {2, 1025}};
const ParityTolerance kTol{};

std::string ctx(const char* op, int rows, int cols) {
    return std::string(op) + " rows=" + std::to_string(rows) + " cols=" + std::to_string(cols);
}

const char* actName(Activation a) {
    switch (a) {
        case Activation::None:
            return "none";
        case Activation::Tanh:
            return "tanh";
        case Activation::Sigmoid:
            return "sigmoid";
        case Activation::Relu:
            return "relu";
        case Activation::LeakyRelu:
            return "leakyrelu";
        case Activation::Swish:
            return "swish";
        case Activation::Softmax:
            return "softmax";
    }
    return "?";
}
const Activation kActs[] = {Activation::None,   Activation::Tanh,      Activation::Sigmoid,
                            Activation::Relu,   Activation::LeakyRelu, Activation::Swish,
                            Activation::Softmax};

}  // namespace

class ParityOps : public ParitySuite {};

// Kernels: fill_f32
TEST_F(ParityOps, fill) {
    for (size_t n : kSizes) {
        NNWB_PARITY(
            [&](OpRun& r) {
                BufRef x = r.out("x", randomVector(n, 1));
                r.be.fill({x, n, -2.5f});
            },
            kTol, "fill n=" + std::to_string(n));
    }
}

// Kernels: copy_f32 (also the memmove path through the scratch buffer for overlaps)
TEST_F(ParityOps, copy) {
    for (size_t n : kSizes) {
        NNWB_PARITY(
            [&](OpRun& r) {
                BufRef s = r.in("src", randomVector(n, 2));
                BufRef d = r.out("dst", randomVector(n, 3));
                r.be.copy({s, d, n});
            },
            kTol, "copy n=" + std::to_string(n));
        // Overlapping ranges of one buffer, both directions.
        for (size_t shift : {size_t(1), size_t(3)}) {
            NNWB_PARITY(
                [&](OpRun& r) {
                    BufRef b = r.out("buf", randomVector(n + shift, 4));
                    r.be.copy({b, b + shift, n});
                },
                kTol, "copy overlap up n=" + std::to_string(n));
            NNWB_PARITY(
                [&](OpRun& r) {
                    BufRef b = r.out("buf", randomVector(n + shift, 5));
                    r.be.copy({b + shift, b, n});
                },
                kTol, "copy overlap down n=" + std::to_string(n));
        }
    }
}

// Kernels: copy2d_f32
TEST_F(ParityOps, copy2d) {
    for (const auto& shape : kShapes) {
        const int rows = shape.first, cols = shape.second;
        for (int extraS : {0, 3}) {
            for (int extraD : {0, 5}) {
                const int sld = cols + extraS, dld = cols + extraD;
                NNWB_PARITY(
                    [&](OpRun& r) {
                        BufRef s = r.in("src", randomVector(size_t(rows) * sld, 6));
                        BufRef d = r.out("dst", randomVector(size_t(rows) * dld, 7));
                        r.be.copy2d({s, sld, d, dld, rows, cols});
                    },
                    kTol,
                    ctx("copy2d", rows, cols) + " sld=" + std::to_string(sld) +
                        " dld=" + std::to_string(dld));
            }
        }
        // Overlapping rows within one buffer (e.g. compacting a padded layout in place).
        NNWB_PARITY(
            [&](OpRun& r) {
                BufRef b = r.out("buf", randomVector(size_t(rows) * (cols + 2) + 2, 8));
                r.be.copy2d({b + 2, cols + 2, b, cols, rows, cols});
            },
            kTol, ctx("copy2d overlap", rows, cols));
    }
}

// Kernels: axpy_f32, add_f32
TEST_F(ParityOps, axpyAdd) {
    for (size_t n : kSizes) {
        NNWB_PARITY(
            [&](OpRun& r) {
                BufRef x = r.in("x", randomVector(n, 9));
                BufRef y = r.out("y", randomVector(n, 10));
                r.be.axpy({n, -0.75f, x, y});
            },
            kTol, "axpy n=" + std::to_string(n));
        NNWB_PARITY(
            [&](OpRun& r) {
                BufRef a = r.in("a", randomVector(n, 11));
                BufRef b = r.in("b", randomVector(n, 12));
                BufRef o = r.out("out", randomVector(n, 13));
                r.be.add({n, a, b, o});
            },
            kTol, "add n=" + std::to_string(n));
        NNWB_PARITY(
            [&](OpRun& r) {  // out aliases a
                BufRef a = r.out("a", randomVector(n, 14));
                BufRef b = r.in("b", randomVector(n, 15));
                r.be.add({n, a, b, a});
            },
            kTol, "add in place n=" + std::to_string(n));
    }
}

// Kernels: bias_activation, bias_softmax_rows (all 7 activations, with and without bias,
// and with z aliasing x)
TEST_F(ParityOps, biasActivation) {
    for (const auto& shape : kShapes) {
        const int rows = shape.first, cols = shape.second;
        for (Activation act : kActs) {
            for (int mode = 0; mode < 3; ++mode) {  // 0 bias, 1 no bias, 2 bias + z == x
                const size_t n = size_t(rows) * cols;
                NNWB_PARITY(
                    [&](OpRun& r) {
                        BufRef bias;
                        if (mode != 1) bias = r.in("bias", randomVector(cols, 21, -0.5f, 0.5f));
                        BufRef y = r.out("y", randomVector(n, 22));
                        if (mode == 2) {
                            BufRef xz = r.out("xz", randomVector(n, 20, -3.0f, 3.0f));
                            r.be.biasActivation({rows, cols, xz, bias, xz, y, act});
                        } else {
                            BufRef x = r.in("x", randomVector(n, 20, -3.0f, 3.0f));
                            BufRef z = r.out("z", randomVector(n, 23));
                            r.be.biasActivation({rows, cols, x, bias, z, y, act});
                        }
                    },
                    kTol,
                    ctx("biasActivation", rows, cols) + " act=" + actName(act) +
                        " mode=" + std::to_string(mode));
            }
        }
    }
}

// Kernels: activation_backward, softmax_backward for Softmax (dz separate and aliasing dy)
TEST_F(ParityOps, activationBackward) {
    for (const auto& shape : kShapes) {
        const int rows = shape.first, cols = shape.second;
        for (Activation act : kActs) {
            for (bool inPlace : {false, true}) {
                const size_t n = size_t(rows) * cols;
                NNWB_PARITY(
                    [&](OpRun& r) {
                        BufRef z = r.in("z", randomVector(n, 30, -3.0f, 3.0f));
                        BufRef y = r.in("y", randomVector(n, 31, 0.0f, 1.0f));
                        if (inPlace) {
                            BufRef d = r.out("dydz", randomVector(n, 32));
                            r.be.activationBackward({rows, cols, z, y, d, d, act});
                        } else {
                            BufRef dy = r.in("dy", randomVector(n, 32));
                            BufRef dz = r.out("dz", randomVector(n, 33));
                            r.be.activationBackward({rows, cols, z, y, dy, dz, act});
                        }
                    },
                    kTol,
                    ctx("activationBackward", rows, cols) + " act=" + actName(act) +
                        (inPlace ? " in place" : ""));
            }
        }
    }
}

// Kernels: bias_gradient (accumulates into db; long columns split into row chunks summed by
// gemm_reduce_splits). Tolerance scaled with the row count.
TEST_F(ParityOps, biasGradient) {
    const std::pair<int, int> shapes[] = {{1, 1},    {3, 7},    {7, 3},    {20, 33},
                                          {33, 20},  {130, 65}, {65, 130}, {1000, 3},
                                          {2, 1000}, {5000, 3}, {3001, 40}};
    for (const auto& shape : shapes) {
        const int rows = shape.first, cols = shape.second;
        ParityTolerance tol{{1e-6 * rows + 1e-5, 1e-4}, {}};
        NNWB_PARITY(
            [&](OpRun& r) {
                BufRef dz = r.in("dz", randomVector(size_t(rows) * cols, 40));
                BufRef db = r.out("db", randomVector(cols, 41));
                r.be.biasGradient({rows, cols, dz, db});
                r.be.biasGradient({rows, cols, dz, db});  // accumulates twice
            },
            tol, ctx("biasGradient", rows, cols));
    }
}

// Kernels: softmax_forward, softmax_backward (scale, causal with queries == cols and
// queries != cols, in place)
TEST_F(ParityOps, softmax) {
    struct Case {
        int rows, cols;
        float scale;
        bool causal;
        int queries;
    };
    const Case cases[] = {{1, 1, 1.0f, false, 0},       {3, 3, 1.0f, true, 3},
                          {14, 7, 0.5f, true, 7},       {20, 33, 0.17f, false, 0},
                          {66, 33, 0.17f, true, 33},    {40, 33, 1.0f, true, 20},
                          {65, 130, 1.0f, false, 0},    {4, 300, 0.125f, false, 0},
                          {600, 300, 0.05f, true, 300}, {7, 1, 2.0f, true, 7}};
    for (const Case& c : cases) {
        SoftmaxShape s;
        s.rows = c.rows;
        s.cols = c.cols;
        s.scale = c.scale;
        s.causal = c.causal;
        s.queries = c.queries;
        const size_t n = size_t(c.rows) * c.cols;
        const std::string name =
            ctx("softmax", c.rows, c.cols) + " scale=" + std::to_string(c.scale) +
            (c.causal ? " causal q=" : "") + (c.causal ? std::to_string(c.queries) : "");
        NNWB_PARITY(
            [&](OpRun& r) {
                BufRef x = r.in("x", randomVector(n, 50, -4.0f, 4.0f));
                BufRef y = r.out("y", randomVector(n, 51));
                r.be.softmaxForward({s, x, y});
            },
            kTol, name + " forward");
        NNWB_PARITY(
            [&](OpRun& r) {
                BufRef xy = r.out("xy", randomVector(n, 50, -4.0f, 4.0f));
                r.be.softmaxForward({s, xy, xy});
            },
            kTol, name + " forward in place");
        NNWB_PARITY(
            [&](OpRun& r) {
                BufRef y = r.in("y", randomVector(n, 52, 0.0f, 1.0f));
                BufRef dy = r.in("dy", randomVector(n, 53));
                BufRef dx = r.out("dx", randomVector(n, 54));
                r.be.softmaxBackward({s, y, dy, dx});
            },
            kTol, name + " backward");
    }
}

// Kernels: norm_forward, norm_backward (no residual)
TEST_F(ParityOps, norm) {
    for (const auto& shape : kShapes) {
        const int rows = shape.first, cols = shape.second;
        const size_t n = size_t(rows) * cols;
        for (float eps : {1e-5f, 1e-2f}) {
            NNWB_PARITY(
                [&](OpRun& r) {
                    BufRef x = r.in("x", randomVector(n, 60, -2.0f, 3.0f));
                    BufRef y = r.out("y", randomVector(n, 61));
                    BufRef rs = r.out("rstd", randomVector(rows, 62));
                    r.be.normForward({rows, cols, eps, x, y, rs});
                },
                kTol, ctx("normForward", rows, cols) + " eps=" + std::to_string(eps));
        }
        NNWB_PARITY(
            [&](OpRun& r) {
                BufRef y = r.in("y", randomVector(n, 63, -2.0f, 2.0f));
                BufRef rs = r.in("rstd", randomVector(rows, 64, 0.5f, 3.0f));
                BufRef dy = r.in("dy", randomVector(n, 65));
                BufRef dx = r.out("dx", randomVector(n, 66));
                r.be.normBackward({rows, cols, y, rs, dy, dx});
            },
            kTol, ctx("normBackward", rows, cols));
    }
}

// Kernel: bias_gradient computing dz = dy * f'(z) first (activation backward fused), for
// every activation (Softmax, and more than 256 rows, fall back to the two ops), and with dz
// aliasing dy.
TEST_F(ParityOps, activationBiasBackward) {
    const std::pair<int, int> shapes[] = {{1, 1}, {20, 33}, {65, 130}, {256, 7}, {5000, 3}};
    for (const auto& shape : shapes)
        for (int act = 0; act <= 6; ++act)
            for (bool alias : {false, true}) {
                const int rows = shape.first, cols = shape.second;
                const size_t n = size_t(rows) * cols;
                ParityTolerance tol{{1e-6 * rows + 1e-5, 1e-4}, {}};
                NNWB_PARITY(
                    [&](OpRun& r) {
                        BufRef z = r.in("z", randomVector(n, 82, -2.0f, 2.0f));
                        BufRef y = r.in("y", randomVector(n, 83, 0.05f, 0.95f));
                        BufRef dy = alias ? r.out("dy", randomVector(n, 84))
                                          : r.in("dy", randomVector(n, 84));
                        BufRef dz = alias ? dy : r.out("dz", randomVector(n, 85));
                        BufRef db = r.out("db", randomVector(size_t(cols), 86));
                        r.be.activationBiasBackward(
                            {rows, cols, z, y, dy, dz, Activation(act), db});
                    },
                    tol,
                    ctx("activationBiasBackward", rows, cols) + " act=" + std::to_string(act) +
                        (alias ? " in place" : ""));
            }
}

// Kernels: norm_forward, norm_backward with the residual add fused in
TEST_F(ParityOps, addNorm) {
    for (const auto& shape : kShapes) {
        const int rows = shape.first, cols = shape.second;
        const size_t n = size_t(rows) * cols;
        NNWB_PARITY(
            [&](OpRun& r) {
                BufRef a = r.in("a", randomVector(n, 67, -2.0f, 3.0f));
                BufRef b = r.in("b", randomVector(n, 68));
                BufRef sum = r.out("sum", randomVector(n, 69));
                BufRef y = r.out("y", randomVector(n, 70));
                BufRef rs = r.out("rstd", randomVector(rows, 71));
                r.be.addNormForward({rows, cols, 1e-5f, a, b, sum, y, rs});
            },
            kTol, ctx("addNormForward", rows, cols));
        NNWB_PARITY(
            [&](OpRun& r) {
                BufRef y = r.in("y", randomVector(n, 72, -2.0f, 2.0f));
                BufRef rs = r.in("rstd", randomVector(rows, 73, 0.5f, 3.0f));
                BufRef dy = r.out("dy", randomVector(n, 74));
                BufRef dy2 = r.in("dy2", randomVector(n, 75));
                BufRef dx = r.out("dx", randomVector(n, 76));
                r.be.addNormBackward({rows, cols, y, rs, dy, dy2, dx});
            },
            kTol, ctx("addNormBackward", rows, cols));
    }
}

// Kernels: gemm_small and gemm_tiled* with the bias/activation epilogue (and the
// unfused fallback for Softmax), against gemm + biasActivation on the reference.
TEST_F(ParityOps, gemmBiasActivation) {
    const int shapes[][3] = {{1, 3, 5}, {20, 96, 24}, {33, 7, 130}, {130, 65, 20}};
    for (const auto& sh : shapes)
        for (int act = 0; act <= 6; ++act)
            for (bool bias : {true, false}) {
                gemmBiasActivationCase(sh[0], sh[1], sh[2], act, bias);
                if (HasFatalFailure()) return;
            }
}

// Kernels: unfold_windows, fold_windows (step < window, step == window, step > window,
// positions running past the end of the sequence)
TEST_F(ParityOps, unfoldFold) {
    struct Case {
        int batch, len, window, step, positions;
    };
    const Case cases[] = {{1, 1, 1, 1, 1},  {3, 20, 5, 2, 10},    {2, 21, 7, 7, 3},
                          {3, 33, 3, 5, 7}, {2, 130, 20, 1, 111}, {1, 65, 33, 20, 4},
                          {7, 7, 3, 3, 3},  {2, 20, 1, 1, 20}};
    for (const Case& c : cases) {
        const std::string name =
            "batch=" + std::to_string(c.batch) + " len=" + std::to_string(c.len) +
            " window=" + std::to_string(c.window) + " step=" + std::to_string(c.step) +
            " positions=" + std::to_string(c.positions);
        const size_t nx = size_t(c.batch) * c.len;
        const size_t nc = size_t(c.batch) * c.positions * c.window;
        NNWB_PARITY(
            [&](OpRun& r) {
                BufRef x = r.in("x", randomVector(nx, 70));
                BufRef cols = r.out("cols", randomVector(nc, 71));
                r.be.unfold({c.batch, c.len, c.window, c.step, c.positions, x, cols});
            },
            kTol, "unfold " + name);
        NNWB_PARITY(
            [&](OpRun& r) {
                BufRef dc = r.in("dcols", randomVector(nc, 72));
                BufRef dx = r.out("dx", randomVector(nx, 73));
                r.be.fold({c.batch, c.len, c.window, c.step, c.positions, dc, dx});
            },
            kTol, "fold " + name);
    }
}

// Kernels: mse_loss, softmax_cross_entropy
TEST_F(ParityOps, losses) {
    for (const auto& shape : kShapes) {
        const int rows = shape.first, cols = shape.second;
        const size_t n = size_t(rows) * cols;
        NNWB_PARITY(
            [&](OpRun& r) {
                BufRef y = r.in("y", randomVector(n, 80));
                BufRef t = r.in("t", randomVector(n, 81));
                BufRef dy = r.out("dy", randomVector(n, 82));
                BufRef loss = r.out("loss", randomVector(rows, 83));
                r.be.mseLoss({rows, cols, y, t, dy, loss, 0.5f});
            },
            kTol, ctx("mseLoss", rows, cols));
        for (bool oneHot : {true, false}) {
            std::vector<float> target(n, 0.0f);
            if (oneHot)
                for (int rr = 0; rr < rows; ++rr) target[size_t(rr) * cols + (rr * 7) % cols] = 1;
            else
                target = randomVector(n, 84, 0.0f, 1.0f);  // unnormalised
            NNWB_PARITY(
                [&](OpRun& r) {
                    BufRef x = r.in("logits", randomVector(n, 85, -5.0f, 5.0f));
                    BufRef t = r.in("t", target);
                    BufRef p = r.out("prob", randomVector(n, 86));
                    BufRef dy = r.out("dy", randomVector(n, 87));
                    BufRef loss = r.out("loss", randomVector(rows, 88));
                    r.be.softmaxCrossEntropy({rows, cols, x, t, p, dy, loss, 0.25f});
                },
                kTol, ctx("softmaxCrossEntropy", rows, cols) + (oneHot ? " one-hot" : " soft"));
        }
    }
}

// Kernels: sgd_step, adam_step (several steps with fresh gradients)
TEST_F(ParityOps, optimizers) {
    for (size_t n : kSizes) {
        for (float wd : {0.0f, 1e-2f}) {
            NNWB_PARITY(
                [&](OpRun& r) {
                    BufRef w = r.out("w", randomVector(n, 90));
                    BufRef v = r.out("velocity", randomVector(n, 91, -0.1f, 0.1f));
                    for (int step = 0; step < 3; ++step) {
                        BufRef g = r.in("g" + std::to_string(step), randomVector(n, 92 + step));
                        r.be.sgdStep({n, w, g, v, 0.05f, 0.9f, wd, BufRef()});
                    }
                },
                kTol, "sgdStep n=" + std::to_string(n) + " wd=" + std::to_string(wd));
            NNWB_PARITY(
                [&](OpRun& r) {
                    BufRef w = r.out("w", randomVector(n, 100));
                    BufRef m = r.out("m", std::vector<float>(n, 0.0f));
                    BufRef v = r.out("v", std::vector<float>(n, 0.0f));
                    const float b1 = 0.9f;  // (no top-level commas inside the macro)
                    const float b2 = 0.999f;
                    for (int t = 1; t <= 5; ++t) {
                        BufRef g =
                            r.in("g" + std::to_string(t), randomVector(n, 100 + t, -2.0f, 2.0f));
                        const float bc1 = 1.0f - std::pow(b1, float(t));
                        const float bc2 = 1.0f - std::pow(b2, float(t));
                        r.be.adamStep(
                            {n, w, g, m, v, 1e-2f, b1, b2, 1e-8f, wd, bc1, bc2, BufRef()});
                    }
                },
                kTol, "adamStep n=" + std::to_string(n) + " wd=" + std::to_string(wd));
        }
    }
}

// Kernels: adam_step with epsilons other than the default (training.optimizer.epsilon): the
// gradients are of epsilon's size, so that epsilon shapes every step.
TEST_F(ParityOps, adamEpsilon) {
    for (float eps : {1e-8f, 1e-4f, 1e-2f}) {
        for (size_t n : {size_t(7), size_t(1000), size_t(70001)}) {
            NNWB_PARITY(
                [&](OpRun& r) {
                    BufRef w = r.out("w", randomVector(n, 130));
                    BufRef m = r.out("m", std::vector<float>(n, 0.0f));
                    BufRef v = r.out("v", std::vector<float>(n, 0.0f));
                    for (int t = 1; t <= 3; ++t) {
                        BufRef g =
                            r.in("g" + std::to_string(t), randomVector(n, 130 + t, -1e-3f, 1e-3f));
                        const float bc1 = 1.0f - std::pow(0.9f, float(t));
                        const float bc2 = 1.0f - std::pow(0.999f, float(t));
                        r.be.adamStep(
                            {n, w, g, m, v, 1e-2f, 0.9f, 0.999f, eps, 0.0f, bc1, bc2, BufRef()});
                    }
                },
                kTol, "adamStep eps=" + std::to_string(eps) + " n=" + std::to_string(n));
        }
    }
}

// Kernels: clip_sum_squares (up to 4,096 values), clip_partial_squares and
// clip_norm_of_partials (more, with a last partial chunk), clip_scale (measure only,
// clipped, above the norm), scale_rows
TEST_F(ParityOps, clippingAndRowScale) {
    std::vector<size_t> sizes(std::begin(kSizes), std::end(kSizes));
    for (size_t n : {size_t(4096), size_t(4097), size_t(12289)}) sizes.push_back(n);
    for (size_t n : sizes) {
        for (float maxNorm : {0.0f, 0.5f, 1e9f}) {
            NNWB_PARITY(
                [&](OpRun& r) {
                    BufRef g = r.out("g", randomVector(n, 120, -2.0f, 2.0f));
                    BufRef norm = r.out("norm", randomVector(1, 121));
                    r.be.clipByGlobalNorm({n, g, maxNorm, norm});
                },
                kTol,
                "clipByGlobalNorm n=" + std::to_string(n) + " maxNorm=" + std::to_string(maxNorm));
        }
    }
    for (const auto& shape : kShapes) {
        const int rows = shape.first, cols = shape.second;
        NNWB_PARITY(
            [&](OpRun& r) {
                BufRef scale = r.in("scale", randomVector(rows, 122, 0.0f, 3.0f));
                BufRef x = r.out("x", randomVector(size_t(rows) * cols, 123));
                r.be.scaleRows({rows, cols, scale, x});
            },
            kTol, ctx("scaleRows", rows, cols));
    }
}

// The divergence flag: steps run while flag < 0 and change nothing once it is set.
TEST_F(ParityOps, optimizerSkipFlag) {
    const size_t n = 37;
    for (float flag : {-1.0f, 0.0f, 4.0f}) {
        NNWB_PARITY(
            [&](OpRun& r) {
                BufRef w = r.out("w", randomVector(n, 110));
                BufRef m = r.out("m", randomVector(n, 111, -0.1f, 0.1f));
                BufRef v = r.out("v", randomVector(n, 112, 0.0f, 0.1f));
                BufRef g = r.in("g", randomVector(n, 113));
                BufRef f = r.in("flag", {flag});
                r.be.adamStep({n, w, g, m, v, 1e-2f, 0.9f, 0.999f, 1e-8f, 0.0f, 0.1f, 0.001f, f});
                r.be.sgdStep({n, w, g, m, 0.05f, 0.9f, 0.0f, f});
            },
            kTol, "optimizer skip flag " + std::to_string(flag));
    }
    CpuBackend cpu;
    Buffer w = cpu.alloc(3), g = cpu.alloc(3), m = cpu.alloc(3), v = cpu.alloc(3), f = cpu.alloc(1);
    const std::vector<float> w0{1.0f, 2.0f, 3.0f}, ones(3, 1.0f);
    cpu.upload(w, w0.data(), 3);
    cpu.upload(g, ones.data(), 3);
    cpu.fill({f, 1, 2.0f});
    cpu.adamStep({3, w, g, m, v, 0.1f, 0.9f, 0.999f, 1e-8f, 0.0f, 0.1f, 0.001f, f});
    cpu.sgdStep({3, w, g, m, 0.1f, 0.9f, 0.0f, f});
    std::vector<float> now(3);
    cpu.download(w, now.data(), 3);
    ASSERT_EQ(now, w0);
    cpu.fill({f, 1, -1.0f});
    cpu.sgdStep({3, w, g, m, 0.5f, 0.0f, 0.0f, f});
    cpu.download(w, now.data(), 3);
    ASSERT_EQ(now, (std::vector<float>{0.5f, 1.5f, 2.5f}));
}

// Kernel: record_outcomes (argmax with ties to the first, target flags, divergence flag)
TEST_F(ParityOps, recordOutcomes) {
    for (int rows : {1, 3, 7, 64, 300}) {
        for (int cols : {1, 3, 5}) {
            std::vector<float> pred = randomVector(size_t(rows) * cols, 120);
            std::vector<float> target(size_t(rows) * cols, 0.0f);
            for (int r = 0; r < rows; ++r) {
                if (r % 4 == 1) pred[size_t(r) * cols + cols - 1] = pred[size_t(r) * cols];
                target[size_t(r) * cols + size_t(r % cols)] = 1.0f;
                if (cols == 3 && r % 5 == 4) target[size_t(r) * cols + 1] = 1.0f;
            }
            std::vector<float> loss = randomVector(size_t(rows), 121, 0.0f, 2.0f);
            for (float bad : {0.0f, NAN, INFINITY}) {
                std::vector<float> l = loss;
                if (bad != 0.0f) l[size_t(rows) / 2] = bad;
                for (float flag0 : {-1.0f, 2.0f}) {
                    NNWB_PARITY(
                        [&](OpRun& r) {
                            BufRef p = r.in("pred", pred);
                            BufRef t = r.in("target", target);
                            BufRef ls = r.in("loss", l);
                            BufRef log = r.out("log", randomVector(size_t(rows) * 2, 122));
                            BufRef f = r.out("flag", {flag0});
                            // The fractal task's encoding (model/Metrics.h) at width 3.
                            BufRef codes = cols == 3 ? r.in("codes", {0.0f, 3.0f, 6.0f}) : BufRef();
                            r.be.recordOutcomes({rows, cols, p, t, ls, log, f, 7.0f, codes});
                        },
                        kTol,
                        ctx("recordOutcomes", rows, cols) + " bad " + std::to_string(bad) +
                            " flag " + std::to_string(flag0));
                }
            }
        }
    }
    // The reference's codes and flag by hand.
    CpuBackend cpu;
    const std::vector<float> pred{0.1f, 0.9f, 0.9f, 0.5f, 0.2f, 0.7f}, target{0, 1, 1, 0, 0, 1},
        loss{0.5f, NAN};
    Buffer p = cpu.alloc(6), t = cpu.alloc(6), l = cpu.alloc(2), log = cpu.alloc(4),
           f = cpu.alloc(1), codes = cpu.alloc(3);
    const std::vector<float> fractalCodes{0.0f, 3.0f, 6.0f};
    cpu.upload(codes, fractalCodes.data(), 3);
    cpu.upload(p, pred.data(), 6);
    cpu.upload(t, target.data(), 6);
    cpu.upload(l, loss.data(), 2);
    cpu.fill({f, 1, -1.0f});
    cpu.recordOutcomes({2, 3, p, t, l, log, f, 5.0f, codes});
    std::vector<float> out(4), flag(1);
    cpu.download(log, out.data(), 4);
    cpu.download(f, flag.data(), 1);
    ASSERT_FLOAT_EQ(out[0], 0.5f);
    ASSERT_FLOAT_EQ(out[1], 1.0f + 3.0f + 6.0f);  // argmax 1 (tie with 2 goes first); buy and sell
    ASSERT_TRUE(std::isnan(out[2]));
    ASSERT_FLOAT_EQ(out[3], 2.0f + 6.0f);
    ASSERT_FLOAT_EQ(flag[0], 5.0f);
}

// Argument checks name the op, as on the CPU backend.
TEST_F(ParityOps, boundsErrors) {
    for (auto& [id, be] : parityDevices().cl) {
        Buffer b = be->alloc(10);
        try {
            be->fill({BufRef(b, 4), 7, 1.0f});
            FAIL() << "fill past the end did not throw";
        } catch (const ComputeError& e) {
            ASSERT_TRUE(std::string(e.what()).find("fill") != std::string::npos) << e.what();
            ASSERT_TRUE(std::string(e.what()).find("overruns") != std::string::npos) << e.what();
        }
        ASSERT_THROW(be->normForward({3, 4, 1e-5f, b, b, BufRef()}), ComputeError);
        SoftmaxShape s;
        s.rows = 2;
        s.cols = 2;
        s.causal = true;
        s.queries = 0;
        ASSERT_THROW(be->softmaxForward({s, b, b}), ComputeError);
        ASSERT_THROW(be->unfold({1, 5, 2, 0, 2, b, b}), ComputeError);
        Buffer other = parityDevices().cpu.alloc(10);
        ASSERT_THROW(be->copy({other, b, 3}), ComputeError);
        (void)id;
    }
}
