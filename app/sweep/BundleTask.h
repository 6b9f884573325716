// `nnwb-cli sweep task BUNDLE I` (docs/slurm.md): one array task of a sweep bundle on a
// cluster node. It checks the bundle's data fingerprints, picks its device from Slurm's GPU
// assignment, runs the trial as `nnwb-cli train --trial --checkpoint` (the one trial mode, on
// the one run engine) and writes results/I/: epochs.jsonl (one epoch object per line),
// model.safetensors (the kept weights), checkpoint.safetensors (after every epoch), trial.err
// and result.json (written atomically when the task ends, also on SIGTERM). A requeued task
// goes on from its checkpoint. It never opens the run store. The CLI's main thread.
#pragma once

#include <cstdio>
#include <string>

namespace nnwb {

// The device a task trains on: `device` is the bundle's ("cpu", "opencl:P", or a full
// "opencl:P:D" kept as it is); for "opencl:P" D is the first GPU Slurm assigned
// (GPU_DEVICE_ORDINAL, else CUDA_VISIBLE_DEVICES; null or empty: 0).
std::string taskDevice(const std::string& device, const char* gpuOrdinal, const char* cudaVisible);

// Runs task `index` of the bundle in `dir` with `cli` (this nnwb-cli); progress lines go to
// `log`. Returns the exit status: 0 complete, 1 failed, 2 bad input, 143 ended by SIGTERM
// (result.json says "interrupted"; a requeue resumes it).
int runBundleTask(const std::string& dir, int index, const std::string& cli, std::FILE* log);

}  // namespace nnwb
