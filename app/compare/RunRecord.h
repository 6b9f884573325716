// The history of one run of a comparison: what it trained on (device, parameters, samples),
// how it ended and every epoch's figures, with its JSON form for comparison-set files.
// Plain value type: built by whichever thread runs or follows the run, copied to others.
// Qt-free.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/engine/RunTypes.h"
#include "model/Trainer.h"

namespace nnwb {

enum class RunStatus { Pending, Running, Completed, Stopped, Failed };

const char* runStatusName(RunStatus s);  // "pending", "running", ...
// How a run that ended `end` shows in a comparison.
RunStatus runStatusOf(RunEnd end);

struct RunRecord {
    std::string label;       // short unique name shown in tables and legends
    std::string deviceId;    // "cpu", "opencl:0:0"
    std::string deviceName;  // "CPU (native)" or the OpenCL device name; empty until started
    size_t parameters = 0;
    size_t trainSamples = 0, validationSamples = 0;
    RunStatus status = RunStatus::Pending;
    std::string error;  // why a failed run failed
    std::vector<EpochReport> epochs;
    // The trading figures of the validation part with the best epoch's weights, as the run
    // store keeps them (StoredRun::trading, app/engine/RunTrading.h); null when none.
    nlohmann::json trading;

    bool hasValidation() const { return validationSamples > 0; }
    // runStatusName, but "stopped early" for a run that early stopping ended (completed, its
    // last epoch marked), as the run store and `nnwb-cli runs` say; "stopped" is the user's.
    const char* statusText() const;
    bool finished() const {
        return status == RunStatus::Completed || status == RunStatus::Stopped ||
               status == RunStatus::Failed;
    }
    // Clears the figures of a previous run (keeps label and device) for a new one.
    void restart();

    // {"status","error","deviceName","parameters","trainSamples","validationSamples","epochs"}
    // and "trading" when there are trading figures
    // (label and device are stored by the comparison set next to it).
    nlohmann::json historyToJson() const;
    // Fills the history part; throws std::invalid_argument("history.key: problem").
    void historyFromJson(const nlohmann::json& j);
};

}  // namespace nnwb
