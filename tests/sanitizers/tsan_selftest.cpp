// The ThreadSanitizer check checked: run by tsan_selftest.sh in the TSan build only.
//   plain      two std::threads write one int without a lock: must be reported.
//   queued     a payload written on a QThread and read on the main thread after a plain Qt
//              queued call: must be reported (Qt's hand-off is invisible to TSan, and the
//              suppressions must not hide nnwb code), which is why nnwb uses CallQueue.
//   callqueue  the same hand-off through CallQueue: must be clean.
#include <cstdio>
#include <cstring>
#include <thread>

#include <QCoreApplication>
#include <QObject>
#include <QThread>
#include <QTimer>

#include "app/core/CallQueue.h"

namespace {

int sharedCounter = 0;

__attribute__((noinline)) void plainRaceWrite() {
    ++sharedCounter;
}

struct Payload {
    int values[16] = {};
};

__attribute__((noinline)) void fillPayload(Payload* p) {
    for (int i = 0; i < 16; ++i) p->values[i] = i * 3;
}

int readHandedOver(const Payload* p) {
    int sum = 0;
    for (int i = 0; i < 16; ++i) sum += p->values[i];
    return sum;
}

// Receives CallQueue calls on the main thread.
class Receiver : public QObject {
    Q_OBJECT
public:
    nnwb::CallQueue calls{this, "runQueuedCalls"};
public Q_SLOTS:
    void runQueuedCalls() { calls.run(); }
};

int handOver(bool throughCallQueue) {
    Receiver receiver;
    int result = -1;
    QThread* thread = QThread::create([&receiver, &result, throughCallQueue] {
        auto* payload = new Payload;
        fillPayload(payload);
        auto deliver = [payload, &result] {
            result = readHandedOver(payload);
            delete payload;
            QCoreApplication::quit();
        };
        if (throughCallQueue)
            receiver.calls.post(deliver);
        else
            QMetaObject::invokeMethod(&receiver, deliver, Qt::QueuedConnection);
    });
    thread->start();
    QTimer::singleShot(30000, [] { QCoreApplication::exit(3); });
    const int rc = QCoreApplication::exec();
    thread->wait();
    delete thread;
    if (rc != 0) return rc;
    std::printf("sum %d\n", result);
    return result == 360 ? 0 : 4;
}

}  // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const char* mode = argc > 1 ? argv[1] : "";
    if (std::strcmp(mode, "plain") == 0) {
        std::thread a([] {
            for (int i = 0; i < 1000; ++i) plainRaceWrite();
        });
        std::thread b([] {
            for (int i = 0; i < 1000; ++i) plainRaceWrite();
        });
        a.join();
        b.join();
        std::printf("counter %d\n", sharedCounter);
        return 0;
    }
    if (std::strcmp(mode, "queued") == 0) return handOver(false);
    if (std::strcmp(mode, "callqueue") == 0) return handOver(true);
    std::fprintf(stderr, "usage: tsan_selftest plain|queued|callqueue\n");
    return 2;
}

#include "tsan_selftest.moc"
