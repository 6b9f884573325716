#include <algorithm>
#include <stdexcept>

#include "model/sweep/Pruner.h"

namespace nnwb::sweep {

std::vector<int> ashaRungs(const AshaOptions& o, int limit) {
    std::vector<int> rungs;
    const int end = o.maxResource > 0 ? std::min(o.maxResource, limit) : limit;
    for (long long r = o.minResource; r < end; r *= o.eta) rungs.push_back(int(r));
    return rungs;
}

namespace {

class AshaPruner : public Pruner {
public:
    explicit AshaPruner(AshaOptions o) : o_(o) {
        if (o_.minResource < 1) throw std::invalid_argument("asha: min_resource must be >= 1");
        if (o_.eta < 2) throw std::invalid_argument("asha: eta must be >= 2");
        if (o_.maxResource != 0 && o_.maxResource < o_.minResource)
            throw std::invalid_argument("asha: max_resource must be >= min_resource");
    }
    bool shouldPrune(const History& history, int number, int epoch) const override {
        const std::vector<int> rungs = ashaRungs(o_, epoch + 1);
        if (std::find(rungs.begin(), rungs.end(), epoch) == rungs.end()) return false;
        const TrialRecord* self = nullptr;
        std::vector<double> values;
        for (const TrialRecord& t : history) {
            auto it = t.intermediate.find(epoch);
            if (it == t.intermediate.end()) continue;
            if (t.number == number) self = &t;
            values.push_back(it->second);
        }
        if (!self) return false;
        const double mine = self->intermediate.at(epoch);
        std::sort(values.begin(), values.end());
        size_t k = values.size() / size_t(o_.eta);
        if (k == 0) k = 1;
        return !(mine <= values[k - 1]);
    }

private:
    AshaOptions o_;
};

}  // namespace

std::unique_ptr<Pruner> makeAshaPruner(AshaOptions options) {
    return std::make_unique<AshaPruner>(options);
}

}  // namespace nnwb::sweep
