// The one supervisor of nnwb-cli's child processes (sweep trials, a bundle task's trial,
// parallel walk-forward folds): a fixed number of slots, each running at most one ChildProcess;
// start on a free slot, one poll over every child for stdout lines and ends, send a line, stop
// (close stdin), kill. What runs next is the caller's: `next(slot)` is asked for every free slot
// (a requeue is the caller starting the same work again). The thread that owns it only; Linux.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/trial/ChildProcess.h"

namespace nnwb {

class ChildSupervisor {
public:
    using Id = int;  // a child, numbered from 1 in start order
    struct Handlers {
        // One complete stdout line of child `id`.
        std::function<void(Id id, const std::string& line)> line;
        // Child `id` has ended (its stdout read to the end): `status` its exit status (128 +
        // the signal for a signal). Its slot is free when this is called.
        std::function<void(Id id, std::size_t slot, int status)> exited;
        // Asked for a free slot (after exited, and by fill): starts a child on it (start) and
        // returns true, or returns false when there is nothing to start now.
        std::function<bool(std::size_t slot)> next;
    };

    explicit ChildSupervisor(std::size_t slots);
    ~ChildSupervisor();  // kills the children still running
    ChildSupervisor(const ChildSupervisor&) = delete;
    ChildSupervisor& operator=(const ChildSupervisor&) = delete;

    std::size_t slotCount() const { return slotOf_.size(); }
    bool busy(std::size_t slot) const { return slotOf_.at(slot) != 0; }
    std::size_t running() const { return children_.size(); }
    // Starts `argv` on free slot `slot` (ChildProcess's arguments). Throws std::runtime_error
    // when it cannot start, std::logic_error when the slot is busy.
    Id start(std::size_t slot, const std::vector<std::string>& argv, const std::vector<int>& cpus,
             const std::string& stderrPath);
    // A line to child `id`'s stdin; closing its stdin; SIGKILL. Nothing for an ended child.
    void send(Id id, const std::string& line);
    void stop(Id id);
    void kill(Id id);
    // Asks handlers.next for each free slot in order until it returns false.
    void fill(const Handlers& h);
    // Waits up to `timeoutMs` for output from any child, then hands every complete line to
    // handlers.line and every child that ended to handlers.exited (then handlers.next for its
    // slot). Returns right away when none runs.
    void poll(int timeoutMs, const Handlers& h);
    // poll() in two steps, so a caller can act between the wait and the lines (the sweep
    // coordinator commits its store writes once per batch of lines, never across the wait):
    // waitForOutput waits up to `timeoutMs` for output from any child (no wait when one has
    // closed its stdout without having been reaped); handleOutput hands over what is there
    // now, without waiting.
    void waitForOutput(int timeoutMs);
    void handleOutput(const Handlers& h);

private:
    struct Child {
        Id id = 0;
        std::size_t slot = 0;
        std::unique_ptr<ChildProcess> proc;
    };
    Child* find(Id id);
    // Reads child `c`'s lines; true when it has ended (then it is reaped and its rest read).
    bool drain(Child& c, const Handlers& h, int& status);

    std::vector<Id> slotOf_;  // the child on each slot, 0: free
    std::vector<Child> children_;
    Id lastId_ = 0;
};

}  // namespace nnwb
