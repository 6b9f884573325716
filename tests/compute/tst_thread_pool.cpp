// ThreadPool (compute/ThreadPool): every index of every job is run exactly once and its writes
// are visible when parallelFor returns, over thousands of back-to-back jobs of varying size and
// grain, with 1 to 4 threads, and after pauses long enough for the workers to stop spinning and
// sleep (the wake-up path). Labelled `threads`, so the TSan step of check runs it too.
#include <QtTest>

#include <chrono>
#include <thread>
#include <vector>

#include "compute/ThreadPool.h"

using namespace nnwb;

class TestThreadPool : public QObject {
    Q_OBJECT
private slots:
    void everyIndexOnceAndVisible() {
        for (int threads : {1, 2, 3, 4}) {
            ThreadPool pool(threads);
            QCOMPARE(pool.size(), threads);
            std::vector<int> runs(1000), last(1000, -1);
            for (int job = 0; job < 3000; ++job) {
                const size_t n = 1 + size_t(job * 37) % runs.size();
                std::fill(runs.begin(), runs.begin() + long(n), 0);
                pool.parallelFor(n, 1 + size_t(job % 7), [&](size_t b, size_t e) {
                    for (size_t i = b; i < e; ++i) {
                        ++runs[i];
                        last[i] = job;
                    }
                });
                for (size_t i = 0; i < n; ++i)
                    if (runs[i] != 1 || last[i] != job)
                        QFAIL(qPrintable(QString("%1 threads, job %2: index %3 ran %4 times")
                                             .arg(threads)
                                             .arg(job)
                                             .arg(i)
                                             .arg(runs[i])));
                // Now and then long enough for the workers to go to sleep.
                if (job % 500 == 499) std::this_thread::sleep_for(std::chrono::milliseconds(5));
            }
        }
    }
    void emptyAndSingleChunkJobsRunOnTheCaller() {
        ThreadPool pool(3);
        bool called = false;
        pool.parallelFor(0, 1, [&](size_t, size_t) { called = true; });
        QVERIFY(!called);
        const auto caller = std::this_thread::get_id();
        std::thread::id ran;
        pool.parallelFor(5, 100, [&](size_t b, size_t e) {
            QCOMPARE(b, size_t(0));
            QCOMPARE(e, size_t(5));
            ran = std::this_thread::get_id();
        });
        QVERIFY(ran == caller);
    }
};

QTEST_APPLESS_MAIN(TestThreadPool)
#include "tst_thread_pool.moc"
