// One trial's child process (`nnwb-cli train --trial`, app/cli/TrialProtocol.h): started with
// pipes on its stdin and stdout, stderr to a file, optionally pinned to CPU cores, killed when
// the coordinator dies (PR_SET_PDEATHSIG) or when this object is destroyed while it runs.
// Linux; the coordinator's thread only.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace nnwb {

class TrialProcess {
public:
    // Throws std::runtime_error when the process cannot be started.
    TrialProcess(const std::vector<std::string>& argv, const std::vector<int>& cpus,
                 const std::string& stderrPath);
    ~TrialProcess();
    TrialProcess(const TrialProcess&) = delete;
    TrialProcess& operator=(const TrialProcess&) = delete;

    pid_t pid() const { return pid_; }
    int outFd() const { return out_; }
    // Reads what stdout has now and appends its complete lines; false once stdout is closed
    // (and the rest has been returned).
    bool readLines(std::vector<std::string>& lines);
    // Writes one line to its stdin (nothing when it is gone).
    void send(const std::string& line);
    // The exit status once it has ended (128 + signal for a signal), without blocking.
    std::optional<int> exited();
    // Blocks until it has ended.
    int wait();
    void kill();

private:
    pid_t pid_ = -1;
    int in_ = -1, out_ = -1;
    std::string buffer_;
    std::optional<int> status_;
};

// The path of the running program (/proc/self/exe): the nnwb-cli that starts children of
// itself (sweep trials, bundle tasks' nodes, parallel folds). Throws std::runtime_error when it
// cannot be read.
std::string thisExecutable();

}  // namespace nnwb
