// Where a sweep's trial start-up went (docs/sweeps.md "Speed of the search"): for each trial
// process or kept worker's trial, from its launch to the coordinator reading its first
// "started" line, split into the coordinator's part before the "trial" line went out (the
// experiment file, starting the worker or process), the way to the worker, the worker's own
// phases (its started line's "startup", app/trial/TrialStartupClock.h) and the way back. Summed
// over one Coordinator::run(); the coordinator's thread only.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace nnwb {

// One launch as the coordinator timed it (seconds of CLOCK_MONOTONIC, trial::monotonicSeconds).
struct LaunchTimes {
    double launchedAt = 0.0;
    double fileSeconds = 0.0;  // writing the trials' experiment files
    double sentAt = 0.0;       // its "trial" line written (or its process started)
    bool newProcess = false;   // a worker (or trial process) was started for it
};

struct StartupBreakdown {
    int launches = 0;      // launches whose started line came
    int split = 0;         // of them, with the worker's "startup" (kept workers)
    int newProcesses = 0;  // of those, on a worker started for it
    int hashed = 0;        // of those, the data file hashed (not a cached hash)
    double total = 0.0;    // launch to the started line read (the start-up share's seconds)
    double file = 0.0, send = 0.0;
    double toWorker = 0.0;     // the trial line sent to read by the worker (kept workers)
    double toNewWorker = 0.0;  // the same on a worker started for it (its process start)
    double arguments = 0.0, data = 0.0, backend = 0.0, build = 0.0, hash = 0.0, line = 0.0;
    double back = 0.0;     // the started line written to read by the coordinator
    double unsplit = 0.0;  // sent to read, for a trial without "startup" (its own process)
    // Between a kept worker's "ready" and its next launch (idle, not start-up): the ended
    // trial's rows, the next configuration and its experiment.
    int betweens = 0;
    double between = 0.0;
    // From a launch's last epoch line read to its end read (a kept worker's "ready", or the
    // process's exit): the kept weights' evaluation and trading figures, the model saved.
    int endings = 0;
    double ending = 0.0;

    // Adds a launch whose first started line (its "startup" object or null) was read at
    // `readAt`.
    void add(const LaunchTimes& launch, const nlohmann::json& startup, double readAt);
    // One line of mean seconds a launch ("" when no launch started).
    std::string text() const;
};

}  // namespace nnwb
