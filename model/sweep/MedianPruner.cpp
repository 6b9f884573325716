#include <algorithm>
#include <cmath>

#include "model/sweep/Pruner.h"

namespace nnwb::sweep {

namespace {

class MedianPruner : public Pruner {
public:
    explicit MedianPruner(MedianOptions o) : o_(o) {}
    bool shouldPrune(const History& history, int number, int epoch) const override {
        if (epoch <= o_.nWarmup) return false;
        const TrialRecord* self = nullptr;
        int complete = 0;
        std::vector<double> at;
        for (const TrialRecord& t : history) {
            if (t.number == number) self = &t;
            if (t.state != TrialState::Complete) continue;
            ++complete;
            auto it = t.intermediate.find(epoch);
            if (it != t.intermediate.end() && !std::isnan(it->second)) at.push_back(it->second);
        }
        if (!self || complete < o_.nStartup || at.empty()) return false;
        double best = INFINITY;
        for (const auto& [e, v] : self->intermediate)
            if (e <= epoch) best = std::min(best, v);
        std::sort(at.begin(), at.end());
        const size_t n = at.size();
        const double median = n % 2 ? at[n / 2] : 0.5 * (at[n / 2 - 1] + at[n / 2]);
        return best > median;
    }

private:
    MedianOptions o_;
};

}  // namespace

std::unique_ptr<Pruner> makeMedianPruner(MedianOptions options) {
    return std::make_unique<MedianPruner>(options);
}

}  // namespace nnwb::sweep
