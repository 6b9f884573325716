// A sweep slot's kept worker, `nnwb-cli sweep worker` (docs/sweeps.md "Kept workers"): one
// process that runs trial after trial, each asked for with a "trial" line on its stdin and run
// as `nnwb-cli train ... --trial` runs in a process of its own (the same command, the same
// protocol lines), then answered with a "ready" line. Trials in it reuse the loaded data and
// the backend (device context, built kernels) of the trials before them. CLI main thread only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace nnwb {
class Backend;
struct Experiment;
struct ExperimentData;
}  // namespace nnwb

namespace nnwb::cli {

// Serves "trial" lines on stdin until the end of input (then returns 0). After each trial it
// prints "ready" with the exit status a trial process would have had (0, 2, 3 or 4). A trial
// that failed (exit status 1: a diverged run, a device or store error) ends the worker with
// status 1 instead, so the slot's next trial starts in a fresh process (the device may be left
// unusable). NNWB_TEST_WORKER_DIE_IN_TRIAL=N (tests): the worker kills itself (SIGKILL) after
// the first epoch line of the N-th trial it serves; NNWB_TEST_WORKER_HOLD_BEFORE_READY=N:FILE
// (tests): after the N-th trial it serves has ended, its "ready" waits until FILE exists.
int runTrialWorker();

// The `nnwb-cli train` arguments of one trial ("train" first) run in this process: returns the
// exit status nnwb-cli would have returned (parse errors and bad input 2, failures 1).
int runTrainArguments(const std::vector<std::string>& argv);

// What a trial in a kept worker takes from the trials before it: the loaded data when its
// data section, folder and file (its FileStamp) are the same and the file had not changed for a
// second when it was loaded; the backend when its device and matmul precision are the same. Null
// outside a worker: the run loads and creates its own.
std::shared_ptr<const ExperimentData> keptData(const Experiment& e);
std::shared_ptr<Backend> keptBackend(const Experiment& e);
// The SHA-256 (and size) of a trial's data file for its provenance: in a worker from its
// FileHashCache (hashed again only when the file may have changed), else sha256File's.
std::string keptFileSha256(const std::string& path, uint64_t* size);

}  // namespace nnwb::cli
