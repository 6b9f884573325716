#include "app/core/BackgroundJobs.h"

namespace nnwb {

BackgroundJobs::BackgroundJobs(int threads) {
    for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { work(); });
}

BackgroundJobs::~BackgroundJobs() {
    std::deque<std::function<void()>> dropped;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
        dropped.swap(jobs_);
    }
    wake_.notify_all();
    for (std::thread& t : threads_) t.join();
}

void BackgroundJobs::post(std::function<void()> job) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (stopping_) return;
        jobs_.push_back(std::move(job));
    }
    wake_.notify_one();
}

int BackgroundJobs::pending() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return int(jobs_.size()) + running_;
}

BackgroundJobs& BackgroundJobs::instance() {
    static BackgroundJobs jobs(2);
    return jobs;
}

void BackgroundJobs::work() {
    for (;;) {
        std::function<void()> job;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
            if (stopping_) return;
            job = std::move(jobs_.front());
            jobs_.pop_front();
            ++running_;
        }
        job();
        job = nullptr;  // its captures (a CallQueue, a bundle) go on this thread, before the count
        std::lock_guard<std::mutex> lock(mutex_);
        --running_;
    }
}

}  // namespace nnwb
