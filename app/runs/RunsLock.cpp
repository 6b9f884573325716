#include "app/runs/RunsLock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

namespace nnwb {

RunsLock::Guard& RunsLock::Guard::operator=(Guard&& o) noexcept {
    if (this != &o) {
        release();
        lock_ = o.lock_;
        o.lock_ = nullptr;
    }
    return *this;
}

void RunsLock::Guard::release() {
    if (lock_) lock_->unlockOnce();
    lock_ = nullptr;
}

namespace {

int openLockFile(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0 && (errno == EACCES || errno == EROFS || errno == EPERM))
        fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);  // flock needs no write access
    if (fd < 0)
        throw std::runtime_error("cannot open the lock file " + path + ": " + std::strerror(errno));
    return fd;
}

// Polls flock(op) until `deadline`; false when it ran out.
bool flockUntil(int fd, int op, std::chrono::steady_clock::time_point deadline,
                const std::string& path) {
    auto pause = std::chrono::microseconds(50);
    for (;;) {
        if (::flock(fd, op | LOCK_NB) == 0) return true;
        if (errno == EINTR) continue;
        if (errno != EWOULDBLOCK)
            throw std::runtime_error("cannot lock " + path + ": " + std::strerror(errno));
        if (std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::microseconds(2000));
    }
}

}  // namespace

RunsLock::RunsLock(std::string path, int timeoutMs)
    : path_(std::move(path)), queuePath_(path_ + ".queue"), timeoutMs_(timeoutMs) {
    fd_ = openLockFile(path_);
    try {
        queueFd_ = openLockFile(queuePath_);
    } catch (...) {
        ::close(fd_);
        throw;
    }
}

RunsLock::~RunsLock() {
    // Closing drops the locks, should a guard outlive us (it must not).
    ::close(queueFd_);
    ::close(fd_);
}

RunsLock::Guard RunsLock::lock(Mode mode) {
    if (depth_ > 0) {
        if (held_ == Mode::Shared && mode == Mode::Exclusive)
            throw std::logic_error("runs lock " + path_ + ": exclusive asked inside shared");
        ++depth_;
        return Guard(this);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs_);
    // Wait in line first: whoever holds the queue lock is next for the lock itself, so a
    // process that writes transaction after transaction cannot take it back before a waiter
    // (polling alone, the one that just released it always won).
    bool got = flockUntil(queueFd_, LOCK_EX, deadline, queuePath_);
    if (got) {
        try {
            got = flockUntil(fd_, mode == Mode::Exclusive ? LOCK_EX : LOCK_SH, deadline, path_);
        } catch (...) {
            ::flock(queueFd_, LOCK_UN);
            throw;
        }
        ::flock(queueFd_, LOCK_UN);
    }
    if (!got)
        throw std::runtime_error("the database is locked by another program (waited " +
                                 std::to_string(timeoutMs_ / 1000.0).substr(0, 4) + " s for " +
                                 path_ + ")");
    held_ = mode;
    depth_ = 1;
    return Guard(this);
}

void RunsLock::unlockOnce() {
    if (depth_ <= 0) return;
    if (--depth_ == 0) ::flock(fd_, LOCK_UN);
}

}  // namespace nnwb
