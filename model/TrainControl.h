// Pause / resume / stop requests for a running Trainer, checked between batches. Set from any
// thread (the GUI thread), read by the training thread; all state is atomic or under a lock.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>

namespace nnwb {

class TrainControl {
public:
    void requestStop() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
        }
        cv_.notify_all();
    }
    void pause() {
        std::lock_guard<std::mutex> lock(mutex_);
        paused_ = true;
    }
    void resume() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            paused_ = false;
        }
        cv_.notify_all();
    }
    bool stopRequested() const { return stop_.load(); }
    bool paused() const { return paused_.load(); }
    // Blocks while paused; returns false when a stop was requested.
    bool checkpoint() {
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait(lock, [this] { return !paused_.load() || stop_.load(); });
        return !stop_.load();
    }

private:
    std::mutex mutex_;
    std::condition_variable cv_;
    std::atomic<bool> stop_{false};
    std::atomic<bool> paused_{false};
};

}  // namespace nnwb
