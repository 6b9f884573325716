// The run store's stress worker (Qt-free, started by tst_run_store_stress): records RUNS runs of
// EPOCHS epochs each into the store DB through RunRecorder, as `nnwb-cli train` does (one
// connection per run), optionally with a thread that open()s, read()s and close()s the database
// file every CLOSE_US microseconds, as a file dialog or MIME sniffer in the window does. Every
// warning goes to stderr; the exit code is 0 unless the arguments are wrong.
//   store_stress_worker DB NAME RUNS EPOCHS CLOSE_US
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "app/runs/RunRecorder.h"

using namespace nnwb;

int main(int argc, char** argv) {
    if (argc != 6) {
        std::fprintf(stderr, "usage: store_stress_worker DB NAME RUNS EPOCHS CLOSE_US\n");
        return 2;
    }
    const std::string db = argv[1], name = argv[2];
    const int runs = std::atoi(argv[3]), epochs = std::atoi(argv[4]);
    const int closeUs = std::atoi(argv[5]);

    // The stray descriptor: every open/close of the file drops the process's POSIX locks on it.
    std::atomic<bool> stop{false};
    std::atomic<long> closes{0};
    std::thread closer;
    if (closeUs > 0)
        closer = std::thread([&] {
            char buf[512];
            while (!stop.load()) {
                const int fd = ::open(db.c_str(), O_RDONLY | O_CLOEXEC);
                if (fd >= 0) {
                    if (::read(fd, buf, sizeof buf) < 0) {
                    }
                    ::close(fd);
                    ++closes;
                }
                std::this_thread::sleep_for(std::chrono::microseconds(closeUs));
            }
        });

    int warnings = 0;
    for (int i = 0; i < runs; ++i) {
        RecordingOptions o;
        o.dbPath = db;
        o.name = name + "-r" + std::to_string(i);
        o.source = "stress";
        RunRecorder rec(o, [&](const std::string& m) {
            ++warnings;
            std::fprintf(stderr, "%s: warning: %s\n", o.name.c_str(), m.c_str());
        });
        Experiment e;
        e.name = o.name;
        ExperimentData data;
        DeviceInfo dev;
        dev.id = "cpu";
        rec.begin(e, data, dev, 10, epochs);
        for (int k = 1; k <= epochs; ++k) {
            EpochReport r;
            r.epoch = k;
            r.train.samples = 10;
            r.train.loss = 1.0 / k;
            r.learningRate = 0.001;
            r.seconds = 0.001;
            rec.epoch(r);
        }
        rec.finish(runstatus::kCompleted);
    }
    stop = true;
    if (closer.joinable()) closer.join();
    std::printf("%s: %d runs of %d epochs, %ld closes, %d warnings\n", name.c_str(), runs, epochs,
                closes.load(), warnings);
    return 0;
}
