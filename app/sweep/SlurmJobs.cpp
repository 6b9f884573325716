#include "app/sweep/SlurmJobs.h"

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace nnwb {

namespace {

std::string quoted(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// job_state is a string in Slurm 22.05 and a list of flags from 23.02 on.
std::string stateOf(const nlohmann::json& j) {
    const auto it = j.find("job_state");
    if (it == j.end()) return "";
    if (it->is_string()) return it->get<std::string>();
    if (it->is_array() && !it->empty() && it->front().is_string())
        return it->front().get<std::string>();
    return "";
}

// array_task_id is a number in 22.05 and {"set":..,"number":..} from 23.02 on; -1: none.
int arrayTaskOf(const nlohmann::json& j) {
    const auto it = j.find("array_task_id");
    if (it == j.end()) return -1;
    if (it->is_number_integer()) return it->get<int>();
    if (it->is_object() && it->value("set", false)) return it->value("number", -1);
    return -1;
}

int numberOf(const nlohmann::json& j, const char* key) {
    const auto it = j.find(key);
    if (it == j.end()) return 0;
    if (it->is_number_integer()) return it->get<int>();
    if (it->is_object() && it->value("set", false)) return it->value("number", 0);
    return 0;
}

nlohmann::json jobsOf(const std::string& squeueJson) {
    nlohmann::json q;
    try {
        q = nlohmann::json::parse(squeueJson);
    } catch (const std::exception& e) {
        throw std::runtime_error(std::string("squeue --json: not JSON: ") + e.what());
    }
    if (!q.is_object() || !q.contains("jobs") || !q["jobs"].is_array())
        throw std::runtime_error("squeue --json: no \"jobs\" list");
    return q["jobs"];
}

}  // namespace

std::string runCommand(const std::string& cmd, bool withStderr) {
    std::FILE* p = ::popen((withStderr ? cmd + " 2>&1" : cmd).c_str(), "r");
    if (!p) throw std::runtime_error("cannot run " + cmd);
    std::string out;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    const int status = ::pclose(p);
    if (status != 0)
        throw std::runtime_error(
            cmd + " failed" +
            (withStderr ? ": " + out
                        : " (exit status " +
                              std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")"));
    return out;
}

bool liveJobState(const std::string& s) {
    for (const char* end : {"COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL", "BOOT_FAIL",
                            "DEADLINE", "OUT_OF_MEMORY", "PREEMPTED"})
        if (s == end) return false;
    return !s.empty();
}

std::map<int, std::string> jobTaskStates(const std::string& squeueJson, int jobId) {
    std::map<int, std::string> out;
    for (const auto& j : jobsOf(squeueJson)) {
        if (numberOf(j, "array_job_id") != jobId && numberOf(j, "job_id") != jobId) continue;
        const std::string state = stateOf(j);
        const int task = arrayTaskOf(j);
        std::string s = j.value("array_task_string", "");
        if (task >= 0 && s.empty()) {
            out[task] = state;
            continue;
        }
        // The pending part of an array: "2-5%2" or "3,5,7-9".
        s = s.substr(0, s.find('%'));
        size_t at = 0;
        while (at < s.size()) {
            const size_t comma = s.find(',', at);
            const std::string part = s.substr(at, comma == std::string::npos ? s.npos : comma - at);
            const size_t dash = part.find('-');
            try {
                const int a = std::stoi(part.substr(0, dash));
                const int b = dash == std::string::npos ? a : std::stoi(part.substr(dash + 1));
                for (int i = a; i <= b; ++i) out[i] = state;
            } catch (const std::exception&) {
            }
            if (comma == std::string::npos) break;
            at = comma + 1;
        }
    }
    return out;
}

int liveJobNamed(const std::string& squeueJson, const std::string& name) {
    for (const auto& j : jobsOf(squeueJson)) {
        if (j.value("name", "") != name || !liveJobState(stateOf(j))) continue;
        const int array = numberOf(j, "array_job_id");
        return array > 0 ? array : numberOf(j, "job_id");
    }
    return 0;
}

int submitArray(const std::string& dir, const std::string& array, const std::string& name,
                const std::vector<std::string>& scriptArgs) {
    std::string cmd = "cd " + quoted(dir) + " && sbatch --parsable --array=" + quoted(array) +
                      " --job-name=" + quoted(name) + " submit.sbatch";
    for (const std::string& a : scriptArgs) cmd += " " + quoted(a);
    const std::string out = runCommand(cmd);
    const int jobId = std::atoi(out.c_str());
    if (jobId <= 0) throw std::runtime_error("sbatch said: " + out);
    return jobId;
}

}  // namespace nnwb
