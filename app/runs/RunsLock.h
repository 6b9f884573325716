// The run store's own lock between every nnwb process and thread: a BSD flock() on a file beside
// the database (`runs.sqlite.lock`), shared while reading, exclusive while writing, waited for up
// to the busy timeout, in line (a second flock'd file, `runs.sqlite.lock.queue`, held while
// waiting, so waiters are not starved). flock locks belong to the open file description, so
// (unlike SQLite's POSIX fcntl locks) closing some other descriptor of the file never drops
// them, and two descriptors in one process conflict like two processes. One RunsLock per
// RunStore (one thread); see RunStore.h for why this makes the store safe. Qt-free.
#pragma once

#include <stdexcept>
#include <string>

namespace nnwb {

class RunsLock {
public:
    enum class Mode { Shared, Exclusive };

    // Holds the lock until destroyed or released. Nested guards of one RunsLock share the
    // outer lock (an exclusive lock covers anything; a shared one covers shared requests).
    class Guard {
    public:
        Guard() = default;
        Guard(Guard&& o) noexcept : lock_(o.lock_) { o.lock_ = nullptr; }
        Guard& operator=(Guard&& o) noexcept;
        ~Guard() { release(); }
        Guard(const Guard&) = delete;
        Guard& operator=(const Guard&) = delete;
        void release();

    private:
        friend class RunsLock;
        explicit Guard(RunsLock* lock) : lock_(lock) {}
        RunsLock* lock_ = nullptr;
    };

    // Opens (creating it when it can) the lock file `path`; a read-only folder or file is fine
    // when the file exists. Throws std::runtime_error saying why it cannot.
    RunsLock(std::string path, int timeoutMs);
    ~RunsLock();
    RunsLock(const RunsLock&) = delete;
    RunsLock& operator=(const RunsLock&) = delete;

    // Waits up to the timeout; throws std::runtime_error ("the database is locked by another
    // program ...") when it runs out. Asking for exclusive inside a shared guard is a logic
    // error (a lock conversion is not atomic) and throws std::logic_error.
    Guard lock(Mode mode);
    bool held() const { return depth_ > 0; }
    bool exclusive() const { return depth_ > 0 && held_ == Mode::Exclusive; }
    const std::string& path() const { return path_; }

private:
    void unlockOnce();
    std::string path_, queuePath_;
    int timeoutMs_;
    int fd_ = -1, queueFd_ = -1;
    int depth_ = 0;
    Mode held_ = Mode::Shared;
};

}  // namespace nnwb
