// Calls handed from any thread to the thread of one QObject (the receiver) through a queue
// guarded by a std::mutex. Qt only carries a wake-up without data (the receiver's slot, invoked
// by name), so every call's data crosses a lock that ThreadSanitizer sees: Qt's own queued-call
// hand-off runs inside the uninstrumented libQt6Core and looks like a race to it.
// post() may be called from any thread; run() and close() only on the receiver's thread.
#pragma once

#include <deque>
#include <functional>
#include <mutex>

class QObject;

namespace nnwb {

class CallQueue {
public:
    // `slot`: the name of a slot (or Q_INVOKABLE) of `receiver` without arguments that calls
    // run(), e.g. "runQueuedCalls".
    CallQueue(QObject* receiver, const char* slot) : receiver_(receiver), slot_(slot) {}
    CallQueue(const CallQueue&) = delete;
    CallQueue& operator=(const CallQueue&) = delete;

    // Any thread: queues `call` and wakes the receiver unless a wake-up is already pending.
    // After close() the call is dropped (destroyed on the calling thread).
    void post(std::function<void()> call);
    // The receiver's thread: runs the queued calls in the order they were posted. A call may
    // itself call run() (the training worker between epochs): that serves the calls posted
    // since this run() began.
    void run();
    // The receiver's thread, before the receiver goes away while posters may live on (the
    // queue is then shared with them): drops the queued calls and every later one.
    void close();

private:
    std::mutex mutex_;
    QObject* receiver_;  // null once closed
    const char* slot_;
    std::deque<std::function<void()>> calls_;
    bool wakePending_ = false;
};

}  // namespace nnwb
