// Shared by the gemm A/B tools in tools/gemm_ab: one product's shape, as
// model/layers/LinearOps.cpp issues it (weights [out x in]: forward x W^T is NT, the weight
// gradient dZ^T x is TN with beta 1, the input gradient dZ W is NN), and the timer.
// Single-threaded command-line tools; nothing here keeps state.
#pragma once

#include <chrono>

namespace nnwb::ab {

struct Shape {
    const char* what;
    bool ta, tb;
    int m, n, k;
    float beta;
};

// Milliseconds per call: 3 calls to warm up, then batches of `batch` calls, each closed by
// sync(), until `seconds` have passed.
// transformer-64's products at batch 256: rows = 256 samples x 64 units; weights are
// [out x in] (LinearOps: y = x W^T, dW += dZ^T x, dX = dZ W). Per block: QKV 64 -> 768,
// W0 256 -> 64, FF1 64 -> 256, FF2 256 -> 64.
constexpr int kRows = 16384;
inline constexpr Shape kTransformerShapes[] = {
    {"fwd qkv  NT", false, true, kRows, 768, 64, 0.f},
    {"fwd w0   NT", false, true, kRows, 64, 256, 0.f},
    {"fwd ff1  NT", false, true, kRows, 256, 64, 0.f},
    {"fwd ff2  NT", false, true, kRows, 64, 256, 0.f},
    {"dW qkv   TN", true, false, 768, 64, kRows, 1.f},
    {"dW w0    TN", true, false, 64, 256, kRows, 1.f},
    {"dW ff1   TN", true, false, 256, 64, kRows, 1.f},
    {"dW ff2   TN", true, false, 64, 256, kRows, 1.f},
    {"dX qkv   NN", false, false, kRows, 64, 768, 0.f},
    {"dX w0    NN", false, false, kRows, 256, 64, 0.f},
    {"dX ff1   NN", false, false, kRows, 64, 256, 0.f},
    {"dX ff2   NN", false, false, kRows, 256, 64, 0.f},
};

template <typename Call, typename Sync>
double msPerCall(Call&& call, Sync&& sync, int batch, double seconds) {
    using Clock = std::chrono::steady_clock;
    for (int i = 0; i < 3; ++i) call();
    sync();
    int reps = 0;
    const auto t0 = Clock::now();
    double elapsed = 0;
    do {
        for (int i = 0; i < batch; ++i) call();
        reps += batch;
        sync();
        elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
    } while (elapsed < seconds);
    return 1e3 * elapsed / reps;
}

}  // namespace nnwb::ab
