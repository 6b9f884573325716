// A training checkpoint: everything a run needs to go on after a completed epoch exactly as if
// it had never stopped — the network's weights, the optimizer's moments and step count, the
// learning-rate schedule, the running averages, the dropout step, the best and last good
// copies and the early-stopping counters — in one safetensors file written atomically
// (tensors net.*, opt.*, best.*, last.*; the state as JSON metadata) with a fingerprint of
// the run's experiment, so a checkpoint of another run is refused. Saved and loaded on the
// thread that owns the trainer's backend.
#pragma once

#include <stdexcept>
#include <string>

#include "model/EpochKeeper.h"
#include "model/Trainer.h"

namespace nnwb {

// A checkpoint that cannot be used; the message names the file and the reason.
class CheckpointError : public std::runtime_error {
public:
    explicit CheckpointError(const std::string& what) : std::runtime_error(what) {}
};

// Writes the checkpoint of the trainer's last completed epoch (atomically: a kill leaves the
// previous one). Throws std::runtime_error when it cannot be written.
void saveCheckpoint(const std::string& path, const std::string& fingerprint, Trainer& trainer,
                    const EpochKeeper& keeper);

// Puts trainer (its network included) and keeper back where the checkpoint left them and
// returns its epoch. Throws CheckpointError for an unreadable or damaged file, another
// fingerprint or a state that does not fit this network; the trainer is then unusable.
int loadCheckpoint(const std::string& path, const std::string& fingerprint, Trainer& trainer,
                   EpochKeeper& keeper);

// The epoch a checkpoint file was written after, without a trainer. Throws CheckpointError for
// a file that is no readable checkpoint.
int checkpointEpoch(const std::string& path);

}  // namespace nnwb
