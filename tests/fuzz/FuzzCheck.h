// Helpers for the libFuzzer targets: an invariant check that aborts (so libFuzzer records the
// input as a crash) with a readable reason. Single-threaded, like every fuzz target.
#pragma once

#include <cstdio>
#include <cstdlib>

#define NNWB_FUZZ_CHECK(cond, what)                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::fprintf(stderr, "fuzz invariant failed: %s (%s:%d)\n", what, __FILE__, __LINE__); \
            std::abort();                                                                          \
        }                                                                                          \
    } while (0)
