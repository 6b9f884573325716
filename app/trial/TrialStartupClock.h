// The phases of a kept worker's trial start-up (docs/sweeps.md "Speed of the search"), from
// the "trial" line read to the "started" line written: the worker times them and puts them in
// its "started" line, the coordinator places them beside its own times. Stamps are seconds of
// CLOCK_MONOTONIC, which every process of a host shares. The trial's thread only (the CLI main
// thread of `nnwb-cli sweep worker`); inactive (no "startup" field) in any other process.
#pragma once

#include <nlohmann/json.hpp>

namespace nnwb::trial {

// Seconds of CLOCK_MONOTONIC (the same clock in every process of the host).
double monotonicSeconds();

enum class StartupPhase { Data, Backend, Hash, Count };

class TrialStartupClock {
public:
    // The process's clock (one trial at a time).
    static TrialStartupClock& process();
    // A "trial" line was read: the trial's start-up begins now (the phases start at 0).
    void begin();
    bool active() const { return read_ > 0.0; }
    void add(StartupPhase phase, double seconds);
    // The trial's run is built: its first "started" line is being written.
    void startedNow();
    // Whether the data file's hash was computed for this trial (false: a cached hash).
    void setDataHashed(bool hashed) { dataHashed_ = hashed; }
    // The "startup" object of the trial's first started line (null when inactive): read,
    // written (stamps: the trial line read, now), arguments, data, backend, build, hash
    // (seconds), dataHashed. The clock is inactive afterwards (until the next begin()).
    nlohmann::json finish();

    // Times one phase from construction to destruction (nothing when the clock is inactive).
    class Scope {
    public:
        explicit Scope(StartupPhase phase);
        ~Scope();
        Scope(const Scope&) = delete;
        Scope& operator=(const Scope&) = delete;

    private:
        StartupPhase phase_;
        double from_;
    };

private:
    double read_ = 0.0;          // the trial line read
    double firstPhase_ = 0.0;    // the first data or backend phase began (0: none yet)
    double lastPhaseEnd_ = 0.0;  // the last data or backend phase ended
    double started_ = 0.0;       // startedNow()
    double seconds_[int(StartupPhase::Count)] = {};
    bool dataHashed_ = false;
};

}  // namespace nnwb::trial
