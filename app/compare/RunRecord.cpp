#include "app/compare/RunRecord.h"

#include <stdexcept>

#include "app/trial/EpochReportJson.h"

namespace nnwb {

namespace {
constexpr RunStatus kStatuses[] = {RunStatus::Pending, RunStatus::Running, RunStatus::Completed,
                                   RunStatus::Stopped, RunStatus::Failed};
}  // namespace

const char* runStatusName(RunStatus s) {
    switch (s) {
        case RunStatus::Pending:
            return "pending";
        case RunStatus::Running:
            return "running";
        case RunStatus::Completed:
            return "completed";
        case RunStatus::Stopped:
            return "stopped";
        case RunStatus::Failed:
            return "failed";
    }
    return "?";
}

const char* RunRecord::statusText() const {
    if (status == RunStatus::Completed && !epochs.empty() && epochs.back().stoppedEarly)
        return "stopped early";
    return runStatusName(status);
}

RunStatus runStatusOf(RunEnd end) {
    return end == RunEnd::Completed ? RunStatus::Completed
           : end == RunEnd::Stopped ? RunStatus::Stopped
                                    : RunStatus::Failed;
}

void RunRecord::restart() {
    deviceName.clear();
    parameters = trainSamples = validationSamples = 0;
    status = RunStatus::Pending;
    error.clear();
    epochs.clear();
    trading = nullptr;
}

nlohmann::json RunRecord::historyToJson() const {
    nlohmann::json list = nlohmann::json::array();
    for (const EpochReport& r : epochs) list.push_back(epochReportToJson(r, hasValidation()));
    nlohmann::json j = {{"status", runStatusName(status)},
                        {"error", error},
                        {"deviceName", deviceName},
                        {"parameters", parameters},
                        {"trainSamples", trainSamples},
                        {"validationSamples", validationSamples},
                        {"epochs", list}};
    if (!trading.is_null()) j["trading"] = trading;
    return j;
}

void RunRecord::historyFromJson(const nlohmann::json& j) {
    if (!j.is_object()) throw std::invalid_argument("history: not an object");
    RunRecord r;
    r.label = label;
    r.deviceId = deviceId;
    try {
        const std::string status = j.value("status", std::string("pending"));
        bool known = false;
        for (RunStatus s : kStatuses)
            if (status == runStatusName(s)) r.status = s, known = true;
        if (!known) throw std::invalid_argument("history.status: unknown '" + status + "'");
        // A run that was going when the file was saved did not finish.
        if (r.status == RunStatus::Running) r.status = RunStatus::Stopped;
        r.error = j.value("error", std::string());
        r.deviceName = j.value("deviceName", std::string());
        r.parameters = j.value("parameters", size_t(0));
        r.trainSamples = j.value("trainSamples", size_t(0));
        r.validationSamples = j.value("validationSamples", size_t(0));
        if (j.contains("trading")) r.trading = j["trading"];
    } catch (const nlohmann::json::exception& e) {
        throw std::invalid_argument(std::string("history: ") + e.what());
    }
    const nlohmann::json list = j.value("epochs", nlohmann::json::array());
    if (!list.is_array()) throw std::invalid_argument("history.epochs: not an array");
    for (size_t i = 0; i < list.size(); ++i) {
        try {
            r.epochs.push_back(epochReportFromJson(list[i]));
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument("history.epochs[" + std::to_string(i) + "]: " + e.what());
        }
    }
    *this = std::move(r);
}

}  // namespace nnwb
