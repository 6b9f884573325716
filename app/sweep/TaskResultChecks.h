// What `sweep import` checks in a bundle task's results/I before it trusts them (docs/slurm.md):
// files that are regular files inside the folder (no symbolic links, devices or FIFOs) of at
// most a stated size, epoch lines numbered 1, 2, 3... within the trial's epochs with finite,
// possible values, Slurm's restart count, and a model file whose safetensors header, weights
// and architecture are the trial's. Each throws std::runtime_error("FILE: reason"). Any thread.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "model/Experiment.h"
#include "model/Trainer.h"

namespace nnwb {

constexpr size_t kMaxResultJsonBytes = size_t(16) << 20;   // result.json
constexpr size_t kMaxEpochsFileBytes = size_t(64) << 20;   // epochs.jsonl
constexpr size_t kMaxModelHeaderBytes = size_t(16) << 20;  // a model's header and metadata

// Whether `path` is there (a symbolic link counts, without following it).
bool resultEntryExists(const std::string& path);
// Throws unless `path` is a folder and no symbolic link.
void checkResultFolder(const std::string& path);
// The bytes of `path`: a regular file, not a symbolic link, of at most `maxBytes`.
std::string readResultFile(const std::string& path, size_t maxBytes);

// One line of epochs.jsonl (`where` is "FILE:LINE"): epoch previousEpoch + 1, at most
// `maxEpochs`; losses finite and >= 0, percentages in [0, 100], times, rates and gradient
// norms finite and >= 0, the best epoch from 0 to this one.
void checkEpochReport(const EpochReport& r, int previousEpoch, int maxEpochs,
                      const std::string& where);

// slurm.restartCount of result.json `file`: "" is 0, else an integer from 0 to 1,000,000.
int restartCountOf(const nlohmann::json& slurm, const std::string& file);

// The model file of a trial of experiment `trial`: at most its weights' size plus
// kMaxModelHeaderBytes, a valid safetensors file with finite weights, a model bundle when
// `bundle` (a trial on a price file), whose tensors (names and shapes) and model layers are
// those of the trial's network.
void checkTrialModel(const std::string& path, const Experiment& trial, bool bundle);

}  // namespace nnwb
