// Runs a sweep (docs/sweeps.md): asks the sampler for configurations, runs each trial as a child
// process (`nnwb-cli train --trial`) on a free slot, records every trial as a run of the run
// store together with its sweep rows (each event all or nothing; the events of one round of
// the loop, the lines the trials printed meanwhile, committed together, so a kill -9 loses at
// most that round's), feeds each epoch's objective to the pruner and answers the trial with
// continue / prune / stop. It is the only writer of the sweep's rows. On start it takes over
// the trials a dead coordinator left running: each goes back to the queue for another attempt
// (its partial run stays in the history as interrupted) unless it has had maxAttempts, then it
// fails. With a population size K > 1 a free slot runs up to K queued trials that may share a
// population in one process (app/sweep/TrialPacking.h), each still its own trial and run.
// Each slot keeps one worker process (`nnwb-cli sweep worker`) that runs its trials one after
// the other, asked with a "trial" line and answering "ready" (docs/sweeps.md "Kept workers");
// it dies as a trial process dies (its trial retried or failed by the same rules).
// Progress lines go to `progress`. The coordinator's thread only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "app/sweep/Slots.h"
#include "app/sweep/StartupBreakdown.h"
#include "app/sweep/SweepStore.h"
#include "app/sweep/TrialPacking.h"
#include "app/sweep/TrialRunRow.h"
#include "app/trial/ChildSupervisor.h"
#include "app/trial/TrialLines.h"
#include "model/sweep/SweepSpec.h"

namespace nnwb {

struct CoordinatorOptions {
    std::string cliPath;  // the nnwb-cli to start trials with
    std::vector<Slot> slots;
    std::FILE* progress = stdout;  // null: quiet
    int maxAttempts = 2;           // attempts a trial gets when its process or coordinator dies
    int population = 0;            // trials packed per process at most (0: the spec's)
    bool keepWorkers = true;       // a kept worker per slot; false: a process per trial
};

// What one call of Coordinator::run() did with its slots' time (a resumed sweep counts only
// its own call): trials ended, wall time, and the slot-seconds trials held a slot, of which the
// part before their "started" line (process start, device and data set-up).
struct SlotTime {
    int slots = 0;
    int trialsEnded = 0;
    double wallSeconds = 0.0;
    double busySeconds = 0.0;
    double startupSeconds = 0.0;
    // The run store's commits (one per round of protocol lines: docs/sweeps.md "Speed of the
    // search") and the seconds the coordinator's thread spent committing them.
    int64_t storeCommits = 0;
    double storeSeconds = 0.0;
    StartupBreakdown startup;  // where startupSeconds went
    double trialsPerHour() const {
        return wallSeconds > 0 ? trialsEnded * 3600.0 / wallSeconds : 0;
    }
    // The share of slot time no trial held (0..1).
    double idleShare() const {
        const double capacity = slots * wallSeconds;
        return capacity > 0 ? std::max(0.0, 1.0 - busySeconds / capacity) : 0.0;
    }
};

class Coordinator {
public:
    Coordinator(const sweep::SweepSpec& spec, int64_t sweepId, RunStore& store,
                CoordinatorOptions options);
    ~Coordinator();
    // Runs until the sweep is done (run cap, grid end or time budget) or stopped. Returns the
    // sweep's final status (sweepstatus::kCompleted or kStopped).
    std::string run();
    // Slot time of the last run(); any time after it returns.
    const SlotTime& slotTime() const { return slotTime_; }

private:
    struct TrialRun;  // one trial of a running process
    struct Running;   // one trial process: one trial, or a packed population of them
    void recover();
    // On a resume: the trial models and temporary files a killed coordinator's trials left.
    void removeLeftovers();
    bool startNext(Slot& slot);
    bool addConfiguration();
    // Whether trials are left to run: queued ones, or configurations within the cap and budget.
    bool workLeft() const;
    // Starts the first of `queued` (trial numbers, in order) on `slot`, packed with those of
    // the others that may share its population (up to the population size and the memory).
    void launch(const std::vector<int>& queued, Slot& slot);
    // The trials of that launch and their experiments (on `slot`'s device), at most what fits.
    void packFor(const std::vector<int>& queued, const Slot& slot, std::vector<int>& packNumbers,
                 std::vector<Experiment>& pack);
    void failToStart(TrialRow& t, const std::string& error);
    // One stdout line of a trial process (app/trial/TrialLines.h decodes it).
    void handleLine(Running& r, const std::string& text);
    void handleTrialLine(Running& r, TrialRun& m, const trial::Line& l);
    // The coordinator ends trial `m` itself (a bad line, no objective): a trial alone is
    // killed, a packed member answered "stop" at the next round.
    void badLine(Running& r, TrialRun& m, const std::string& why);
    // A trial's "started" line: its run, linked to the trial's attempt.
    void recordStarted(TrialRun& m, const nlohmann::json& started);
    // An ensemble trial's member runs ("started" names their seeds), linked to its run.
    void recordMembers(TrialRun& m, const Experiment& experiment, bool loaded,
                       const nlohmann::json& started, const TrialRunNames& names);
    // An "epoch" line: the run's epoch and the trial's objective, then the answer.
    // An ensemble trial's line also has its members' reports (their runs' epochs).
    void recordEpoch(Running& r, TrialRun& m, const EpochReport& rep,
                     const std::vector<EpochReport>& members = {});
    void answerEpoch(Running& r, TrialRun& m, int epoch);
    void answerMembers(Running& r, const std::vector<int>& members);
    void finished(Running& r, TrialRun& m, int exitStatus);
    void storeModel(TrialRun& m);  // the trial's saved weights become its run's model
    void progressLine(const TrialRow& t, const std::string& what);
    TrialRow* row(int number);
    // Reads trial `number` back from the store after a write (the store decides its fields).
    void refresh(int number);
    // An ensemble trial is its own population: never packed.
    int packSize() const {
        if (spec_.ensemble > 1) return 1;
        return o_.population > 0 ? o_.population : spec_.population;
    }
    Running* runningOf(ChildSupervisor::Id child);
    // A trial process ended with `status`: each of its trials ends (finished).
    void processEnded(ChildSupervisor::Id child, int status);
    void checkSweep(double now, double& lastCheck, double& lastBeat);
    // One round of the loop: the sweep's status and heartbeat, free slots filled, the lines
    // and ends the trial processes have printed so far, all of its store writes committed at
    // once (RunStore::Batch), then its progress lines. False when no trial process is left.
    bool round(const ChildSupervisor::Handlers& h, double& lastCheck, double& lastBeat);
    // Whether a stop was asked (`sweep stop` stored it): read from the store unless already
    // known. Read before every trial handed out, so a stop is honoured between trials however
    // short they are, not only at the periodic look (checkSweep).
    bool stopAsked();
    // Why this sweep's trials each run in a process of their own (empty: on kept workers).
    std::string perTrialProcessReason() const;
    // Starts the trial process of `r` (argv: `train ...`) on slot `slot`, or asks the slot's
    // kept worker for it (starting the worker first when it has none).
    ChildSupervisor::Id startTrialProcess(std::size_t slot, const std::vector<std::string>& argv,
                                          Running& r);
    // A kept worker's "ready": its trial ended with `status`; the slot's next trial goes to it,
    // or, with none to run now, its stdin is closed (it ends; the slot is free).
    void workerReady(Running& r, int status);

    sweep::SweepSpec spec_;
    int64_t id_;
    RunStore& runs_;
    SweepStore store_;
    CoordinatorOptions o_;
    std::unique_ptr<sweep::Sampler> sampler_;
    std::unique_ptr<sweep::Pruner> pruner_;
    std::vector<TrialRow> trials_;
    std::vector<std::unique_ptr<Running>> running_;
    std::unique_ptr<ChildSupervisor> children_;  // one slot per o_.slots entry
    std::string folder_;                         // trial experiments and stderr files
    bool stopping_ = false;
    bool samplerDone_ = false;
    double startedAt_ = 0.0;
    SlotTime slotTime_;
    PackMemory packMemory_;
    // The kept worker of each slot (0: none) and its stderr file (its first trial's).
    struct Worker {
        ChildSupervisor::Id child = 0;
        std::string errFile;
        double readyAt = 0.0;  // its last "ready" (monotonic seconds; 0: none pending)
    };
    std::vector<Worker> workers_;
    std::FILE* out_ = nullptr;  // progress lines: o_.progress, or a round's held lines
};

}  // namespace nnwb
