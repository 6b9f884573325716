// Reading squeue --json for a sweep bundle's arrays (app/sweep/SlurmJobs.h) without a cluster:
// squeue 22.05 ignores -j with --json and lists every job, finished ones too (for MinJobAge),
// so a job's tasks are picked by array_job_id, the pending part of an array ("3,5-6%2") is
// expanded, finished states are not live, and a live job is found by its name (how a
// coordinator run again finds the array it submitted before it was killed). Slurm 23.02's
// forms (job_state a list, numbers as {"set", "number"}) read the same.
#include <QtTest>

#include <nlohmann/json.hpp>

#include "app/sweep/SlurmJobs.h"

using nlohmann::json;

class SlurmQueueTest : public QObject {
    Q_OBJECT

    static json job(int id, int array, int task, const std::string& tasks, const std::string& state,
                    const std::string& name) {
        return {{"job_id", id},
                {"array_job_id", array},
                {"array_task_id", task < 0 ? json() : json(task)},
                {"array_task_string", tasks},
                {"job_state", state},
                {"name", name}};
    }

private Q_SLOTS:
    void tasksOfOneJobAmongOthers() {
        const json q = {{"jobs",
                         {job(1, 1, 2, "", "COMPLETED", "nnwb-a-g0r0"),
                          job(7, 7, -1, "3,5-6%2", "PENDING", "nnwb-b-g1r0"),
                          job(8, 7, 0, "", "RUNNING", "nnwb-b-g1r0"),
                          job(9, 7, 1, "", "COMPLETED", "nnwb-b-g1r0"),
                          job(12, 0, -1, "", "RUNNING", "other")}}};
        const auto s = nnwb::jobTaskStates(q.dump(), 7);
        const std::map<int, std::string> want = {
            {0, "RUNNING"}, {1, "COMPLETED"}, {3, "PENDING"}, {5, "PENDING"}, {6, "PENDING"}};
        QCOMPARE(s, want);
        QCOMPARE(nnwb::jobTaskStates(q.dump(), 1), (std::map<int, std::string>{{2, "COMPLETED"}}));
        QVERIFY(nnwb::jobTaskStates(q.dump(), 99).empty());
        QCOMPARE(nnwb::liveJobNamed(q.dump(), "nnwb-b-g1r0"), 7);
        QCOMPARE(nnwb::liveJobNamed(q.dump(), "nnwb-a-g0r0"), 0);  // finished: not live
        QCOMPARE(nnwb::liveJobNamed(q.dump(), "other"), 12);
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, nnwb::jobTaskStates("squeue: error", 7));
    }

    void liveStates() {
        for (const char* s :
             {"PENDING", "RUNNING", "REQUEUED", "COMPLETING", "CONFIGURING", "SUSPENDED"})
            QVERIFY2(nnwb::liveJobState(s), s);
        for (const char* s : {"COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL",
                              "OUT_OF_MEMORY", "PREEMPTED", ""})
            QVERIFY2(!nnwb::liveJobState(s), s);
    }

    void slurm23Forms() {
        const json set = {{"set", true}, {"infinite", false}, {"number", 4}};
        const json q = {{"jobs",
                         {{{"job_id", {{"set", true}, {"number", 40}}},
                           {"array_job_id", {{"set", true}, {"number", 39}}},
                           {"array_task_id", set},
                           {"array_task_string", ""},
                           {"job_state", {"RUNNING"}},
                           {"name", "nnwb-c-g0r1"}}}}};
        QCOMPARE(nnwb::jobTaskStates(q.dump(), 39), (std::map<int, std::string>{{4, "RUNNING"}}));
        QCOMPARE(nnwb::liveJobNamed(q.dump(), "nnwb-c-g0r1"), 39);
    }
};

QTEST_GUILESS_MAIN(SlurmQueueTest)
#include "tst_slurm_queue.moc"
