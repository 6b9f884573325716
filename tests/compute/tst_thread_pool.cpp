// ThreadPool (compute/ThreadPool): every index of every job is run exactly once and its writes
// are visible when parallelFor returns, over thousands of back-to-back jobs of varying size and
// grain, with 1 to 4 threads, and after pauses long enough for the workers to stop spinning and
// sleep (the wake-up path). Labelled `threads`, so the TSan step of check runs it too.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "compute/ThreadPool.h"

using namespace nnwb;

TEST(ThreadPool, everyIndexOnceAndVisible) {
    for (int threads : {1, 2, 3, 4}) {
        ThreadPool pool(threads);
        ASSERT_EQ(pool.size(), threads);
        std::vector<int> runs(1000), last(1000, -1);
        for (int job = 0; job < 3000; ++job) {
            const size_t n = 1 + size_t(job * 37) % runs.size();
            std::fill(runs.begin(), runs.begin() + long(n), 0);
            pool.parallelFor(n, 1 + size_t(job % 7), [&](size_t b, size_t e) {
                for (size_t i = b; i < e; ++i) {
                    ++runs[i];
                    last[i] = job;
                }
            });
            for (size_t i = 0; i < n; ++i)
                if (runs[i] != 1 || last[i] != job)
                    FAIL() << threads << " threads, job " << job << ": index " << i << " ran "
                           << runs[i] << " times";
            // Now and then long enough for the workers to go to sleep.
            if (job % 500 == 499) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    }
}

TEST(ThreadPool, emptyAndSingleChunkJobsRunOnTheCaller) {
    ThreadPool pool(3);
    bool called = false;
    pool.parallelFor(0, 1, [&](size_t, size_t) { called = true; });
    ASSERT_FALSE(called);
    const auto caller = std::this_thread::get_id();
    std::thread::id ran;
    pool.parallelFor(5, 100, [&](size_t b, size_t e) {
        ASSERT_EQ(b, size_t(0));
        ASSERT_EQ(e, size_t(5));
        ran = std::this_thread::get_id();
    });
    ASSERT_TRUE(ran == caller);
}
