// CallQueue, the cross-thread hand-off of the training controller, the worker and the data
// pane: calls from many threads run on the receiver's thread in the order each thread posted
// them, wake-ups coalesce, close() drops queued and later calls, and a queue shared with a
// thread that outlives the receiver drops that thread's calls instead of touching the receiver.
#include <QtTest>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "app/core/CallQueue.h"

using namespace nnwb;

namespace {

class Receiver : public QObject {
    Q_OBJECT
public:
    Receiver() : calls(std::make_shared<CallQueue>(this, "runQueuedCalls")) {}
    ~Receiver() override { calls->close(); }
    std::shared_ptr<CallQueue> calls;
    int wakeUps = 0;
public Q_SLOTS:
    void runQueuedCalls() {
        ++wakeUps;
        calls->run();
    }
};

}  // namespace

class CallQueueTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void callsRunInOrderOnTheReceiverThread() {
        Receiver receiver;
        constexpr int kThreads = 4;
        constexpr int kCalls = 500;
        std::vector<std::vector<int>> seen(kThreads);  // touched on the receiver thread only
        int ran = 0;
        bool offThread = false;
        QThread* const mainThread = QThread::currentThread();
        std::vector<std::thread> posters;
        for (int t = 0; t < kThreads; ++t) {
            posters.emplace_back([&, t] {
                for (int i = 0; i < kCalls; ++i)
                    receiver.calls->post([&, t, i] {
                        if (QThread::currentThread() != mainThread) offThread = true;
                        seen[t].push_back(i);
                        ++ran;
                    });
            });
        }
        for (auto& p : posters) p.join();
        QTRY_COMPARE_WITH_TIMEOUT(ran, kThreads * kCalls, 30000);
        QVERIFY(!offThread);
        for (int t = 0; t < kThreads; ++t) {
            QCOMPARE(int(seen[t].size()), kCalls);
            for (int i = 0; i < kCalls; ++i) QCOMPARE(seen[t][i], i);
        }
        QVERIFY(receiver.wakeUps >= 1);
        QVERIFY(receiver.wakeUps <= kThreads * kCalls);
    }

    void wakeUpsCoalesce() {
        Receiver receiver;
        int ran = 0;
        for (int i = 0; i < 100; ++i) receiver.calls->post([&ran] { ++ran; });
        QCOMPARE(ran, 0);  // nothing runs before the receiver's event loop does
        QTRY_COMPARE(ran, 100);
        QCOMPARE(receiver.wakeUps, 1);
        // A call posted while the queue runs gets a wake-up of its own.
        receiver.calls->post([&] { receiver.calls->post([&ran] { ran += 10; }); });
        QTRY_COMPARE(ran, 110);
        QCOMPARE(receiver.wakeUps, 3);
    }

    void closeDropsQueuedAndLaterCalls() {
        Receiver receiver;
        auto token = std::make_shared<int>(0);
        receiver.calls->post([token] { ++*token; });
        QCOMPARE(token.use_count(), 2);
        receiver.calls->close();
        QCOMPARE(token.use_count(), 1);  // the queued call is gone
        receiver.calls->post([token] { ++*token; });
        QCOMPARE(token.use_count(), 1);  // and a later one is not kept
        QCoreApplication::processEvents();
        QCoreApplication::processEvents();
        QCOMPARE(*token, 0);
    }

    void posterOutlivesTheReceiver() {
        auto receiver = std::make_unique<Receiver>();
        std::shared_ptr<CallQueue> calls = receiver->calls;
        std::atomic<bool> go{false};
        std::atomic<int> posted{0};
        auto ran = std::make_shared<std::atomic<int>>(0);
        std::thread poster([&, calls, ran] {
            while (!go.load()) std::this_thread::yield();
            for (int i = 0; i < 200; ++i) {
                calls->post([ran] { ++*ran; });
                ++posted;
            }
        });
        go = true;
        while (posted.load() < 20) std::this_thread::yield();
        receiver.reset();  // closes the queue while the thread still posts
        poster.join();
        QCoreApplication::processEvents();
        QCOMPARE(posted.load(), 200);
        QCOMPARE(ran->load(), 0);      // the receiver never ran its event loop, so nothing ran
        QCOMPARE(ran.use_count(), 1);  // and no call was kept in the closed queue
    }
};

QTEST_GUILESS_MAIN(CallQueueTest)
#include "tst_call_queue.moc"
