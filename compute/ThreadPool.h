// A small fixed-size thread pool with a blocking parallel-for, used by CpuBackend to spread
// ops over rows, batch items and heads. parallelFor is called from one owner thread at a time.
// Workers spin briefly for the next job before they sleep (a training step is hundreds of
// short jobs back to back, and a futex wake per job cost more than many of the jobs).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace nnwb {

class ThreadPool {
public:
    explicit ThreadPool(int threads);  // 0 = the cores this process may run on
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int size() const { return static_cast<int>(workers_.size()) + 1; }
    // Runs fn(begin, end) over [0, n) split into chunks of at least `grain`; blocks until done.
    void parallelFor(size_t n, size_t grain, const std::function<void(size_t, size_t)>& fn);

private:
    void workerLoop();
    // Claims and runs chunks of job `gen` until none is left or a newer job replaced it.
    void runChunks(uint32_t gen);
    bool waitForJob(uint32_t seen);  // false when the pool stops

    std::vector<std::thread> workers_;
    // The job in one word: generation (bits 32-63), chunk count (16-31) and next unclaimed
    // chunk (0-15). A chunk is claimed by a compare-exchange of the whole word, so a claim
    // checks generation and count together: a worker late from an earlier job can neither
    // run a chunk of the next one nor claim one while the owner is still writing it.
    std::atomic<uint64_t> state_{0};
    std::atomic<const std::function<void(size_t, size_t)>*> job_{nullptr};
    std::atomic<size_t> jobN_{0}, jobChunk_{0};
    std::atomic<size_t> finished_{0};
    // Sleeping workers wait on wake_ under mutex_ (after spinning for a while).
    std::mutex mutex_;
    std::condition_variable wake_;
    std::atomic<int> sleepers_{0};
    std::atomic<bool> stop_{false};
};

}  // namespace nnwb
