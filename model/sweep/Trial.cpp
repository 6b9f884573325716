#include "model/sweep/Trial.h"

namespace nnwb::sweep {

namespace {
constexpr const char* kNames[] = {"queued", "running", "complete", "pruned", "failed"};
}

const char* trialStateName(TrialState s) {
    return kNames[static_cast<int>(s)];
}

std::optional<TrialState> trialStateFromName(const std::string& name) {
    for (int i = 0; i < 5; ++i)
        if (name == kNames[i]) return static_cast<TrialState>(i);
    return std::nullopt;
}

}  // namespace nnwb::sweep
