#include "compute/ThreadPool.h"

#include <algorithm>

#ifdef __linux__
#include <sched.h>
#endif

namespace nnwb {

namespace {
// Cores this process may run on: the affinity mask (taskset, cgroups cpusets) where the system
// has one, else the hardware count. More threads than cores only adds switching.
int usableCores() {
#ifdef __linux__
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
#endif
    return static_cast<int>(std::thread::hardware_concurrency());
}
}  // namespace

ThreadPool::ThreadPool(int threads) {
    int n = threads > 0 ? threads : usableCores();
    n = std::max(1, n);
    for (int i = 1; i < n; ++i) workers_.emplace_back([this, i] { workerLoop(i); });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
}

void ThreadPool::parallelFor(size_t n, size_t grain,
                             const std::function<void(size_t, size_t)>& fn) {
    if (n == 0) return;
    grain = std::max<size_t>(1, grain);
    const size_t maxChunks = static_cast<size_t>(size()) * 4;
    size_t chunks = std::min(maxChunks, (n + grain - 1) / grain);
    if (chunks <= 1 || workers_.empty()) {
        fn(0, n);
        return;
    }
    const size_t chunk = (n + chunks - 1) / chunks;
    chunks = (n + chunk - 1) / chunk;
    std::unique_lock<std::mutex> lock(mutex_);
    job_ = &fn;
    jobN_ = n;
    jobChunk_ = chunk;
    nextChunk_ = 0;
    chunks_ = chunks;
    finished_ = 0;
    ++generation_;
    wake_.notify_all();
    // The calling thread works too.
    while (nextChunk_ < chunks_) {
        size_t c = nextChunk_++;
        lock.unlock();
        fn(c * chunk, std::min(n, (c + 1) * chunk));
        lock.lock();
        ++finished_;
    }
    done_.wait(lock, [this] { return finished_ == chunks_; });
    job_ = nullptr;
}

void ThreadPool::workerLoop(int) {
    unsigned long seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        wake_.wait(lock, [&] { return stop_ || (generation_ != seen && job_ != nullptr); });
        if (stop_) return;
        seen = generation_;
        while (job_ != nullptr && nextChunk_ < chunks_) {
            size_t c = nextChunk_++;
            const auto* fn = job_;
            size_t n = jobN_, chunk = jobChunk_;
            lock.unlock();
            (*fn)(c * chunk, std::min(n, (c + 1) * chunk));
            lock.lock();
            if (++finished_ == chunks_) done_.notify_all();
        }
    }
}

}  // namespace nnwb
