#include "app/trial/ChildProcess.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace nnwb {

namespace {
int decode(int status) {
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return -1;
}
}  // namespace

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::vector<int>& cpus,
                           const std::string& stderrPath) {
    int inPipe[2], outPipe[2];
    if (pipe2(inPipe, O_CLOEXEC) != 0) throw std::runtime_error(std::strerror(errno));
    if (pipe2(outPipe, O_CLOEXEC) != 0) {
        ::close(inPipe[0]);
        ::close(inPipe[1]);
        throw std::runtime_error(std::strerror(errno));
    }
    const int err = ::open(stderrPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ == 0) {  // the child: only async-signal-safe calls until exec
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(127);  // the coordinator died already
        ::dup2(inPipe[0], 0);
        ::dup2(outPipe[1], 1);
        if (err >= 0) ::dup2(err, 2);
        if (!cpus.empty()) {
            cpu_set_t set;
            CPU_ZERO(&set);
            for (int c : cpus) CPU_SET(c, &set);
            ::sched_setaffinity(0, sizeof set, &set);
        }
        ::signal(SIGPIPE, SIG_DFL);
        ::execv(args[0], args.data());
        ::_exit(127);
    }
    const int forkErrno = errno;
    ::close(inPipe[0]);
    ::close(outPipe[1]);
    if (err >= 0) ::close(err);
    if (pid_ < 0) {
        ::close(inPipe[1]);
        ::close(outPipe[0]);
        throw std::runtime_error(std::string("cannot start a child process: ") +
                                 std::strerror(forkErrno));
    }
    in_ = inPipe[1];
    out_ = outPipe[0];
    ::fcntl(out_, F_SETFL, ::fcntl(out_, F_GETFL) | O_NONBLOCK);
}

ChildProcess::~ChildProcess() {
    if (!status_) {
        kill();
        wait();
    }
    if (in_ >= 0) ::close(in_);
    if (out_ >= 0) ::close(out_);
}

bool ChildProcess::readLines(std::vector<std::string>& lines) {
    if (out_ < 0) return false;
    char buf[65536];
    for (;;) {
        const ssize_t n = ::read(out_, buf, sizeof buf);
        if (n > 0) {
            buffer_.append(buf, size_t(n));
            continue;
        }
        const bool open = n < 0 && (errno == EAGAIN || errno == EINTR);
        size_t start = 0;
        for (size_t nl; (nl = buffer_.find('\n', start)) != std::string::npos; start = nl + 1)
            lines.push_back(buffer_.substr(start, nl - start));
        buffer_.erase(0, start);
        if (!open) {
            if (!buffer_.empty()) lines.push_back(buffer_);  // a last line without newline
            buffer_.clear();
            ::close(out_);
            out_ = -1;
        }
        return open;
    }
}

void ChildProcess::send(const std::string& line) {
    if (in_ < 0) return;
    const std::string s = line + "\n";
    if (::write(in_, s.data(), s.size()) != ssize_t(s.size())) {
        ::close(in_);
        in_ = -1;
    }
}

void ChildProcess::closeInput() {
    if (in_ >= 0) ::close(in_);
    in_ = -1;
}

std::optional<int> ChildProcess::exited() {
    if (status_) return status_;
    int st = 0;
    const pid_t r = ::waitpid(pid_, &st, WNOHANG);
    if (r == pid_) status_ = decode(st);
    return status_;
}

int ChildProcess::wait() {
    while (!status_) {
        int st = 0;
        const pid_t r = ::waitpid(pid_, &st, 0);
        if (r == pid_)
            status_ = decode(st);
        else if (r < 0 && errno != EINTR)
            status_ = -1;
    }
    return *status_;
}

void ChildProcess::kill() {
    if (!status_ && pid_ > 0) ::kill(pid_, SIGKILL);
}

std::string thisExecutable() {
    std::error_code ec;
    const std::filesystem::path p = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) throw std::runtime_error("cannot find nnwb-cli itself (/proc/self/exe)");
    return p.string();
}

}  // namespace nnwb
