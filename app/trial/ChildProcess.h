// One child process of nnwb-cli (a sweep trial, a bundle task's trial, a parallel fold): started
// with pipes on its stdin and stdout, stderr to a file, optionally pinned to CPU cores, killed
// when its parent dies (PR_SET_PDEATHSIG) or when this object is destroyed while it runs.
// ChildSupervisor runs them on slots. Linux; the thread that started it only.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace nnwb {

class ChildProcess {
public:
    // Throws std::runtime_error when the process cannot be started.
    ChildProcess(const std::vector<std::string>& argv, const std::vector<int>& cpus,
                 const std::string& stderrPath);
    ~ChildProcess();
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;

    pid_t pid() const { return pid_; }
    int outFd() const { return out_; }
    // Reads what stdout has now and appends its complete lines; false once stdout is closed
    // (and the rest has been returned).
    bool readLines(std::vector<std::string>& lines);
    // Writes one line to its stdin (nothing when it is gone).
    void send(const std::string& line);
    // Closes its stdin (the trial protocol reads that as "stop").
    void closeInput();
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
