// The one supervisor of child processes (app/trial/ChildSupervisor.cpp, issue 42 §4) driven
// directly with /bin/sh children: a child's lines in order and its exit status, a crash (128 +
// the signal, the lines before it kept), a line sent and stdin closed (stop), a child that
// ignores its stdin killed, the slots never over-filled while next() starts the queue (and a
// crashed job started again, the caller's requeue), a busy slot refused, and the children
// still running killed when the supervisor goes.
#include <QtTest>

#include <signal.h>

#include <chrono>
#include <map>

#include "app/trial/ChildSupervisor.h"

using namespace nnwb;

namespace {

std::vector<std::string> sh(const std::string& script) {
    return {"/bin/sh", "-c", script};
}

// What the supervisor reported of its children.
struct Seen {
    std::map<ChildSupervisor::Id, std::vector<std::string>> lines;
    std::map<ChildSupervisor::Id, int> status;
    std::vector<size_t> freedSlots;
    ChildSupervisor::Handlers handlers() {
        ChildSupervisor::Handlers h;
        h.line = [this](ChildSupervisor::Id id, const std::string& l) { lines[id].push_back(l); };
        h.exited = [this](ChildSupervisor::Id id, size_t slot, int s) {
            status[id] = s;
            freedSlots.push_back(slot);
        };
        return h;
    }
};

// Polls until none runs (at most `seconds`).
bool runOut(ChildSupervisor& s, const ChildSupervisor::Handlers& h, double seconds = 20) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (s.running() > 0 && std::chrono::steady_clock::now() < until) s.poll(100, h);
    return s.running() == 0;
}

QString errFile() {
    return QDir::temp().filePath(QString("tst_child_supervisor-%1.err").arg(::getpid()));
}

}  // namespace

class ChildSupervisorTest : public QObject {
    Q_OBJECT
private slots:
    void linesInOrderAndTheExitStatus() {
        ChildSupervisor s(1);
        Seen seen;
        const auto id =
            s.start(0, sh("echo one; echo two; printf three; exit 3"), {}, errFile().toStdString());
        QVERIFY(s.busy(0));
        QVERIFY(runOut(s, seen.handlers()));
        QCOMPARE(seen.lines[id], (std::vector<std::string>{"one", "two", "three"}));
        QCOMPARE(seen.status[id], 3);
        QCOMPARE(seen.freedSlots, std::vector<size_t>{0});
        QVERIFY(!s.busy(0));
    }

    void aCrashIsItsSignalAndKeepsItsLines() {
        ChildSupervisor s(1);
        Seen seen;
        const auto id =
            s.start(0, sh("echo before; kill -SEGV $$; echo after"), {}, errFile().toStdString());
        QVERIFY(runOut(s, seen.handlers()));
        QCOMPARE(seen.lines[id], std::vector<std::string>{"before"});
        QCOMPARE(seen.status[id], 128 + SIGSEGV);
    }

    void aLineSentIsReadAndStopClosesItsInput() {
        ChildSupervisor s(1);
        Seen seen;
        const auto id = s.start(0, sh("read a; echo got:$a; read b || echo end-of-input"), {},
                                errFile().toStdString());
        s.send(id, "continue");
        auto h = seen.handlers();
        for (int i = 0; i < 100 && seen.lines[id].empty(); ++i) s.poll(100, h);
        QCOMPARE(seen.lines[id], std::vector<std::string>{"got:continue"});
        s.stop(id);
        QVERIFY(runOut(s, h));
        QCOMPARE(seen.lines[id], (std::vector<std::string>{"got:continue", "end-of-input"}));
        QCOMPARE(seen.status[id], 0);
    }

    void aChildThatIgnoresItsInputIsKilled() {
        ChildSupervisor s(1);
        Seen seen;
        const auto id = s.start(0, sh("trap '' TERM; echo up; while :; do sleep 0.05; done"), {},
                                errFile().toStdString());
        auto h = seen.handlers();
        for (int i = 0; i < 100 && seen.lines[id].empty(); ++i) s.poll(100, h);
        s.stop(id);  // it does not read: still running after a while
        for (int i = 0; i < 5; ++i) s.poll(50, h);
        QCOMPARE(s.running(), size_t(1));
        s.kill(id);
        QVERIFY(runOut(s, h, 5));
        QCOMPARE(seen.status[id], 128 + SIGKILL);
        QVERIFY(!s.busy(0));
    }

    void slotsAreNeverOverFilledAndACrashedJobRunsAgain() {
        ChildSupervisor s(2);
        Seen seen;
        auto h = seen.handlers();
        // Jobs 0..4; job 2 crashes on its first run and is queued again by its caller.
        std::vector<int> queue = {0, 1, 2, 3, 4};
        std::map<ChildSupervisor::Id, int> jobOf;
        std::map<int, int> runs;
        size_t most = 0;
        const auto exited = h.exited;
        h.exited = [&](ChildSupervisor::Id id, size_t slot, int status) {
            exited(id, slot, status);
            if (status != 0) queue.push_back(jobOf[id]);  // the requeue
        };
        h.next = [&](size_t slot) {
            if (queue.empty()) return false;
            const int job = queue.front();
            queue.erase(queue.begin());
            const bool crash = job == 2 && runs[job] == 0;
            ++runs[job];
            jobOf[s.start(slot,
                          sh(crash ? "kill -KILL $$" : "sleep 0.1; echo job" + std::to_string(job)),
                          {}, errFile().toStdString())] = job;
            most = std::max(most, s.running());
            return true;
        };
        s.fill(h);
        QCOMPARE(s.running(), size_t(2));
        QVERIFY(runOut(s, h));
        QCOMPARE(most, size_t(2));
        QCOMPARE(runs, (std::map<int, int>{{0, 1}, {1, 1}, {2, 2}, {3, 1}, {4, 1}}));
        int done = 0;
        for (const auto& [id, st] : seen.status) done += st == 0;
        QCOMPARE(done, 5);
        QCOMPARE(seen.freedSlots.size(), size_t(6));
    }

    void aBusySlotIsRefused() {
        ChildSupervisor s(1);
        s.start(0, sh("sleep 5"), {}, errFile().toStdString());
        QVERIFY_THROWS_EXCEPTION(std::logic_error,
                                 s.start(0, sh("true"), {}, errFile().toStdString()));
    }

    void theChildrenStillRunningAreKilledWithIt() {
        pid_t pid = 0;
        {
            ChildSupervisor s(1);
            Seen seen;
            const auto id = s.start(0, sh("echo $$; exec sleep 60"), {}, errFile().toStdString());
            auto h = seen.handlers();
            for (int i = 0; i < 100 && seen.lines[id].empty(); ++i) s.poll(100, h);
            QCOMPARE(seen.lines[id].size(), size_t(1));
            pid = pid_t(std::stol(seen.lines[id].front()));
            QCOMPARE(::kill(pid, 0), 0);
        }
        QCOMPARE(::kill(pid, 0), -1);  // killed and reaped
        QCOMPARE(errno, ESRCH);
    }
};

QTEST_MAIN(ChildSupervisorTest)
#include "tst_child_supervisor.moc"
