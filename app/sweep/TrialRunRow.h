// The stored run of a sweep trial's attempt: one builder for the coordinator (a trial's
// "started" line) and the bundle import (result.json's copy of it), with the fields RunRecorder
// records for a trained run (recordedRunRow, app/runs/RunRecorder.h): a uuid, the experiment
// and its file, the data file with its SHA-256, size, bars and their times, the monitor, the
// device, the seed, the sizes of the model and the data, the epochs planned. Pure; any thread.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "app/runs/StoredRun.h"
#include "model/Experiment.h"

namespace nnwb {

// What names the run: the caller's.
struct TrialRunNames {
    std::string name, tags, comparison, note;
    std::string uuid;  // empty: a new one
};

// The run of `experiment` (saved at `experimentFile`) as its `started` line describes it
// (docs/sweeps.md "Trial protocol"): the data file is the experiment's (absolute); the line's
// hash and size of it are taken when the line names that same file. Values of the wrong kind
// in `provenance` are left out (the bundle import checks them itself).
StoredRun trialRunRow(const Experiment& experiment, const std::string& experimentFile,
                      const nlohmann::json& started, const TrialRunNames& names);

}  // namespace nnwb
