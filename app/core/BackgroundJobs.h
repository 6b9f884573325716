// The worker threads of app/core for the window's background jobs (reading a price file,
// applying a model to one): a job is a plain function run on one of them; whoever posts it
// brings its own cancel flag and CallQueue, so a result of a job whose owner is gone is dropped.
// post() and pending(): any thread. The process-wide instance lives until exit, when the jobs
// still queued are dropped and the running ones are waited for.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace nnwb {

class BackgroundJobs {
public:
    explicit BackgroundJobs(int threads);
    ~BackgroundJobs();
    BackgroundJobs(const BackgroundJobs&) = delete;
    BackgroundJobs& operator=(const BackgroundJobs&) = delete;

    // Runs `job` on one of the threads, in the order posted.
    void post(std::function<void()> job);
    // Jobs queued or running.
    int pending() const;

    // The process-wide instance (two threads: a long prediction leaves one for file reads).
    static BackgroundJobs& instance();

private:
    void work();

    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::function<void()>> jobs_;
    int running_ = 0;
    bool stopping_ = false;
    std::vector<std::thread> threads_;
};

}  // namespace nnwb
