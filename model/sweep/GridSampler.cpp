#include <functional>

#include "model/sweep/Sampler.h"

namespace nnwb::sweep {

namespace {

class GridSampler : public Sampler {
public:
    explicit GridSampler(const SearchSpace& space) {
        // Depth-first over the parameters in order; an inactive one adds no branch.
        const auto& ps = space.params();
        std::function<void(size_t, nlohmann::json&)> walk = [&](size_t i, nlohmann::json& c) {
            if (i == ps.size()) {
                points_.push_back(c);
                return;
            }
            if (!SearchSpace::active(ps[i], c)) return walk(i + 1, c);
            for (const nlohmann::json& v : ps[i].gridValues()) {
                c[ps[i].name] = v;
                walk(i + 1, c);
                c.erase(ps[i].name);
            }
        };
        nlohmann::json c = nlohmann::json::object();
        walk(0, c);
    }
    std::optional<nlohmann::json> ask(const History& history, int) override {
        for (const nlohmann::json& p : points_) {
            bool taken = false;
            for (const TrialRecord& t : history)
                if (t.params == p) {
                    taken = true;
                    break;
                }
            if (!taken) return p;
        }
        return std::nullopt;
    }

private:
    std::vector<nlohmann::json> points_;
};

}  // namespace

std::unique_ptr<Sampler> makeGridSampler(const SearchSpace& space) {
    return std::make_unique<GridSampler>(space);
}

}  // namespace nnwb::sweep
