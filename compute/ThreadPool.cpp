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

// A pause in spin loops (lets the sibling hyper-thread run, saves power).
inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

// Pauses a worker spins for the next job before it sleeps (about 0.1-0.5 ms), and the owner
// for its workers' last chunks before it yields between checks.
constexpr int kWorkerSpins = 1 << 12;
constexpr int kOwnerSpins = 1 << 12;

inline uint32_t generationOf(uint64_t state) {
    return uint32_t(state >> 32);
}
// Chunk count and next chunk: 16 bits each in the state word (ThreadPool.h).
constexpr size_t kMaxChunks = 0xFFFF;
inline size_t chunksOf(uint64_t state) {
    return size_t(state >> 16) & kMaxChunks;
}
inline size_t nextChunkOf(uint64_t state) {
    return size_t(state) & kMaxChunks;
}

}  // namespace

ThreadPool::ThreadPool(int threads) {
    int n = threads > 0 ? threads : usableCores();
    n = std::max(1, n);
    for (int i = 1; i < n; ++i) workers_.emplace_back([this] { workerLoop(); });
}

ThreadPool::~ThreadPool() {
    stop_.store(true);
    { std::lock_guard<std::mutex> lock(mutex_); }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
}

void ThreadPool::parallelFor(size_t n, size_t grain,
                             const std::function<void(size_t, size_t)>& fn) {
    if (n == 0) return;
    grain = std::max<size_t>(1, grain);
    const size_t maxChunks = std::min(kMaxChunks, static_cast<size_t>(size()) * 4);
    size_t chunks = std::min(maxChunks, (n + grain - 1) / grain);
    if (chunks <= 1 || workers_.empty()) {
        fn(0, n);
        return;
    }
    const size_t chunk = (n + chunks - 1) / chunks;
    chunks = (n + chunk - 1) / chunk;
    // The previous job is finished and every one of its chunks claimed, so no worker can
    // claim anything until the new state below is stored, and none reads these fields before.
    job_.store(&fn, std::memory_order_relaxed);
    jobN_.store(n, std::memory_order_relaxed);
    jobChunk_.store(chunk, std::memory_order_relaxed);
    finished_.store(0, std::memory_order_relaxed);
    const uint32_t gen = generationOf(state_.load(std::memory_order_relaxed)) + 1;
    // Publishes the fields above (sequentially consistent).
    state_.store((uint64_t(gen) << 32) | (uint64_t(chunks) << 16));
    if (sleepers_.load() > 0) {
        { std::lock_guard<std::mutex> lock(mutex_); }
        wake_.notify_all();
    }
    runChunks(gen);  // the calling thread works too
    for (int spins = 0; finished_.load(std::memory_order_acquire) < chunks; ++spins) {
        if (spins < kOwnerSpins)
            cpuRelax();
        else
            std::this_thread::yield();
    }
}

void ThreadPool::runChunks(uint32_t gen) {
    uint64_t s = state_.load(std::memory_order_acquire);
    for (;;) {
        if (generationOf(s) != gen) return;
        const size_t c = nextChunkOf(s);
        if (c >= chunksOf(s)) return;
        if (!state_.compare_exchange_weak(s, s + 1, std::memory_order_acq_rel,
                                          std::memory_order_acquire))
            continue;  // s now holds the current state
        // The claim succeeded while job `gen` was current, so these are its fields.
        const auto* fn = job_.load(std::memory_order_relaxed);
        const size_t n = jobN_.load(std::memory_order_relaxed);
        const size_t chunk = jobChunk_.load(std::memory_order_relaxed);
        (*fn)(c * chunk, std::min(n, (c + 1) * chunk));
        finished_.fetch_add(1, std::memory_order_release);
        s = state_.load(std::memory_order_acquire);
    }
}

bool ThreadPool::waitForJob(uint32_t seen) {
    for (int i = 0; i < kWorkerSpins; ++i) {
        if (stop_.load(std::memory_order_relaxed)) return false;
        if (generationOf(state_.load(std::memory_order_relaxed)) != seen) return true;
        cpuRelax();
    }
    std::unique_lock<std::mutex> lock(mutex_);
    // Counted before the check below (both sequentially consistent): parallelFor publishes
    // its job before it reads sleepers_, so either this check sees the job or the owner
    // sees a sleeper and notifies under the mutex.
    sleepers_.fetch_add(1);
    wake_.wait(lock, [&] { return stop_.load() || generationOf(state_.load()) != seen; });
    sleepers_.fetch_sub(1);
    return !stop_.load();
}

void ThreadPool::workerLoop() {
    uint32_t seen = 0;
    while (waitForJob(seen)) {
        seen = generationOf(state_.load(std::memory_order_acquire));
        runChunks(seen);
    }
}

}  // namespace nnwb
