// Parity of the lightweight convolution: every OpenCL device against the CpuBackend reference
// for kernel sizes 3, 5, 7, 15, 31, causal (padL = K - 1) and centred (padL = K / 2) padding,
// softmax over taps on and off, 1 and 3 heads; dx overwritten (or skipped when empty), dw
// accumulated. Guard values around every buffer. Tolerance: 1e-5 abs + 1e-4 rel for y and dx,
// 1e-5 abs per summed term for dw.
#include <gtest/gtest.h>

#include "parity/ParityHarness.h"

using namespace nnwb;
using namespace nnwb::test;

class ParityLightconv : public ParitySuite {};

// Kernels: lightconv_taps, lightconv_forward, lightconv_backward_dx, lightconv_tap_grad,
// lightconv_weight_grad_apply
TEST_F(ParityLightconv, forwardBackward) {
    struct Shape {
        int batch, units, channels;
    };
    const Shape shapes[] = {{1, 1, 3}, {2, 7, 3}, {3, 20, 6}, {1, 33, 9}, {2, 65, 3}};
    for (const Shape& s : shapes)
        for (int k : {3, 5, 7, 15, 31})
            for (int heads : {1, 3})
                for (bool causal : {true, false})
                    for (bool sm : {false, true}) {
                        const int padL = causal ? k - 1 : k / 2;
                        const size_t n = size_t(s.batch) * s.units * s.channels;
                        const size_t nw = size_t(heads) * k;
                        std::ostringstream name;
                        name << "lightConv batch=" << s.batch << " units=" << s.units
                             << " channels=" << s.channels << " heads=" << heads << " k=" << k
                             << " padL=" << padL << " softmaxTaps=" << sm;
                        const ParityTolerance tol{
                            {1e-5, 1e-4}, {{"dw", {1e-5 * double(n / heads) * 1.0 + 1e-5, 1e-4}}}};
                        // The forward pass on its buffers (x, weight, then the outputs wsm, y).
                        struct Forward {
                            BufRef x, w, wsm, y;
                        };
                        auto forward = [&](OpRun& r) {
                            Forward f;
                            f.x = r.in("x", randomVector(n, 300));
                            f.w = r.in("weight", randomVector(nw, 301));
                            f.wsm = r.out("wsm", randomVector(nw, 302));
                            f.y = r.out("y", randomVector(n, 303));
                            r.be.lightConvForward({s.batch, s.units, s.channels, heads, k, padL, sm,
                                                   f.x, f.w, f.wsm, f.y});
                            return f;
                        };
                        NNWB_PARITY([&](OpRun& r) { forward(r); }, tol, name.str() + " forward");
                        for (bool withDx : {true, false}) {
                            NNWB_PARITY(
                                [&](OpRun& r) {
                                    const Forward f = forward(r);
                                    BufRef dy = r.in("dy", randomVector(n, 304));
                                    BufRef dx;
                                    if (withDx) dx = r.out("dx", randomVector(n, 305));
                                    BufRef dw = r.out("dw", randomVector(nw, 306));
                                    r.be.lightConvBackward({s.batch, s.units, s.channels, heads, k,
                                                            padL, sm, f.x, f.w, f.wsm, dy, dx, dw});
                                },
                                tol, name.str() + (withDx ? " backward" : " backward no dx"));
                        }
                    }
}

// Channels not divisible by heads is an error on both backends.
TEST_F(ParityLightconv, badHeads) {
    for (auto& [id, be] : parityDevices().cl) {
        Buffer x = be->alloc(40), w = be->alloc(6), wsm = be->alloc(6), y = be->alloc(40);
        ASSERT_THROW(be->lightConvForward({2, 5, 4, 3, 2, 1, false, x, w, wsm, y}), ComputeError);
        ASSERT_THROW(be->lightConvBackward({2, 5, 4, 3, 2, 1, false, x, w, wsm, y, x, w}),
                     ComputeError);
        (void)id;
    }
}
