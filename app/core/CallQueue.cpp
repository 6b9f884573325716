#include "app/core/CallQueue.h"

#include <QMetaObject>
#include <QObject>

namespace nnwb {

void CallQueue::post(std::function<void()> call) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!receiver_) return;
    calls_.push_back(std::move(call));
    if (wakePending_) return;
    wakePending_ = true;
    // Under the lock, so that close() cannot let the receiver go while it is being woken.
    QMetaObject::invokeMethod(receiver_, slot_, Qt::QueuedConnection);
}

void CallQueue::run() {
    std::deque<std::function<void()>> calls;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        calls.swap(calls_);
        wakePending_ = false;
    }
    for (auto& call : calls) call();
}

void CallQueue::close() {
    std::deque<std::function<void()>> dropped;
    std::lock_guard<std::mutex> lock(mutex_);
    receiver_ = nullptr;
    dropped.swap(calls_);
}

}  // namespace nnwb
