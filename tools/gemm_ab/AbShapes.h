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
