// A small fixed-size thread pool with a blocking parallel-for, used by CpuBackend to spread
// ops over rows, batch items and heads. parallelFor is called from one owner thread at a time.
#pragma once

#include <condition_variable>
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
    void workerLoop(int index);
    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable wake_, done_;
    const std::function<void(size_t, size_t)>* job_ = nullptr;
    size_t jobN_ = 0, jobChunk_ = 0, nextChunk_ = 0, chunks_ = 0, finished_ = 0;
    unsigned long generation_ = 0;
    bool stop_ = false;
};

}  // namespace nnwb
