#include "app/trial/ChildSupervisor.h"

#include <poll.h>

#include <stdexcept>

namespace nnwb {

ChildSupervisor::ChildSupervisor(std::size_t slots) : slotOf_(slots, 0) {}

ChildSupervisor::~ChildSupervisor() = default;  // ~ChildProcess kills and reaps

ChildSupervisor::Id ChildSupervisor::start(std::size_t slot, const std::vector<std::string>& argv,
                                           const std::vector<int>& cpus,
                                           const std::string& stderrPath) {
    if (busy(slot)) throw std::logic_error("slot " + std::to_string(slot) + " is busy");
    Child c;
    c.proc = std::make_unique<ChildProcess>(argv, cpus, stderrPath);
    c.id = ++lastId_;
    c.slot = slot;
    slotOf_[slot] = c.id;
    children_.push_back(std::move(c));
    return lastId_;
}

ChildSupervisor::Child* ChildSupervisor::find(Id id) {
    for (Child& c : children_)
        if (c.id == id) return &c;
    return nullptr;
}

void ChildSupervisor::send(Id id, const std::string& line) {
    if (Child* c = find(id)) c->proc->send(line);
}

void ChildSupervisor::stop(Id id) {
    if (Child* c = find(id)) c->proc->closeInput();
}

void ChildSupervisor::kill(Id id) {
    if (Child* c = find(id)) c->proc->kill();
}

void ChildSupervisor::fill(const Handlers& h) {
    for (std::size_t s = 0; s < slotCount(); ++s)
        if (!busy(s) && !h.next(s)) return;
}

bool ChildSupervisor::drain(Child& c, const Handlers& h, int& status) {
    std::vector<std::string> lines;
    const bool open = c.proc->outFd() >= 0 && c.proc->readLines(lines);
    const Id id = c.id;
    for (const std::string& l : lines) h.line(id, l);
    Child* still = find(id);  // a handler may not remove it, but may start others (moving it)
    if (open && !still->proc->exited()) return false;
    status = still->proc->wait();
    if (still->proc->outFd() >= 0) {  // ended with stdout still open: read the rest
        std::vector<std::string> rest;
        while (still->proc->readLines(rest)) {
        }
        for (const std::string& l : rest) h.line(id, l);
    }
    return true;
}

void ChildSupervisor::poll(int timeoutMs, const Handlers& h) {
    waitForOutput(timeoutMs);
    handleOutput(h);
}

void ChildSupervisor::waitForOutput(int timeoutMs) {
    if (children_.empty()) return;
    std::vector<pollfd> fds;
    for (const Child& c : children_)
        if (c.proc->outFd() >= 0) fds.push_back({c.proc->outFd(), POLLIN, 0});
    ::poll(fds.data(), fds.size(), fds.size() == children_.size() ? timeoutMs : 0);
}

void ChildSupervisor::handleOutput(const Handlers& h) {
    if (children_.empty()) return;
    std::vector<Id> ids;
    for (const Child& c : children_) ids.push_back(c.id);
    for (Id id : ids) {
        Child* c = find(id);
        int status = 0;
        if (!c || !drain(*c, h, status)) continue;
        c = find(id);
        const std::size_t slot = c->slot;
        slotOf_[slot] = 0;
        children_.erase(children_.begin() + (c - children_.data()));
        h.exited(id, slot, status);
        // The slot's next child at once (before another ended child's lines are handled).
        if (h.next && !busy(slot)) h.next(slot);
    }
}

}  // namespace nnwb
