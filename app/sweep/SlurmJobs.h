// Slurm's commands as a sweep bundle uses them (docs/slurm.md): sbatch to submit an array of a
// bundle's tasks, squeue --json to see which of a job's tasks are still queued or running.
// squeue 22.05 ignores -j/--name with --json and lists finished jobs for MinJobAge, so the
// job's entries are picked from the whole queue here. Blocking calls; any one thread.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace nnwb {

// Runs a shell command; returns its stdout and, with `withStderr`, its stderr (else stderr goes
// to this process's, so warnings cannot spoil JSON). Throws std::runtime_error with the output
// when it fails.
std::string runCommand(const std::string& cmd, bool withStderr = true);

// Array task index -> Slurm state (PENDING, RUNNING, ... COMPLETED) of job `jobId`'s tasks in
// `squeueJson` (squeue --json's output); the pending part of an array ("2-5%2", "3,5,7-9")
// is expanded. Throws std::runtime_error when it is not squeue's JSON.
std::map<int, std::string> jobTaskStates(const std::string& squeueJson, int jobId);

// Whether a state is that of a job still queued or running (not COMPLETED, CANCELLED, FAILED,
// TIMEOUT, NODE_FAIL, BOOT_FAIL, DEADLINE, OUT_OF_MEMORY, PREEMPTED).
bool liveJobState(const std::string& state);

// The job id of a live job named `name` in `squeueJson` (0: none).
int liveJobNamed(const std::string& squeueJson, const std::string& name);

// `sbatch --parsable --array=ARRAY --job-name=NAME submit.sbatch ARGS...` in bundle folder
// `dir`; returns the job id. Throws std::runtime_error with sbatch's words.
int submitArray(const std::string& dir, const std::string& array, const std::string& name,
                const std::vector<std::string>& scriptArgs);

}  // namespace nnwb
