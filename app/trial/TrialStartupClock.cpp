#include "app/trial/TrialStartupClock.h"

#include <time.h>

#include <algorithm>

namespace nnwb::trial {

double monotonicSeconds() {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

TrialStartupClock& TrialStartupClock::process() {
    static TrialStartupClock clock;
    return clock;
}

void TrialStartupClock::begin() {
    *this = TrialStartupClock();
    read_ = monotonicSeconds();
}

void TrialStartupClock::add(StartupPhase phase, double seconds) {
    if (active()) seconds_[int(phase)] += seconds;
}

void TrialStartupClock::startedNow() {
    if (active() && started_ == 0.0) started_ = monotonicSeconds();
}

nlohmann::json TrialStartupClock::finish() {
    if (!active()) return nullptr;
    const double writtenAt = monotonicSeconds();
    const double started = started_ > 0.0 ? started_ : writtenAt;
    // Arguments: the trial line read to the first data or backend phase (the command line, the
    // experiment file); build: the last of those phases to the run built (network, trainer,
    // weights on the device, programs). Without those phases (a walk-forward) all is build.
    const double first = firstPhase_ > 0.0 ? firstPhase_ : read_;
    const double last = lastPhaseEnd_ > 0.0 ? lastPhaseEnd_ : read_;
    auto s = [&](StartupPhase p) { return seconds_[int(p)]; };
    const nlohmann::json j = {{"read", read_},
                              {"written", writtenAt},
                              {"arguments", std::max(0.0, first - read_)},
                              {"data", s(StartupPhase::Data)},
                              {"backend", s(StartupPhase::Backend)},
                              {"build", std::max(0.0, started - last)},
                              {"hash", s(StartupPhase::Hash)},
                              {"dataHashed", dataHashed_}};
    *this = TrialStartupClock();  // the trial's later lines are not start-up
    return j;
}

TrialStartupClock::Scope::Scope(StartupPhase phase) : phase_(phase), from_(monotonicSeconds()) {
    TrialStartupClock& c = process();
    if (c.active() && phase_ != StartupPhase::Hash && c.firstPhase_ == 0.0) c.firstPhase_ = from_;
}

TrialStartupClock::Scope::~Scope() {
    TrialStartupClock& c = process();
    if (!c.active()) return;
    const double now = monotonicSeconds();
    c.add(phase_, now - from_);
    if (phase_ != StartupPhase::Hash) c.lastPhaseEnd_ = std::max(c.lastPhaseEnd_, now);
}

}  // namespace nnwb::trial
