#include "model/sweep/TpeSampler.h"

#include <algorithm>
#include <cmath>

#include "model/Rng.h"
#include "model/sweep/ParzenEstimator.h"

namespace nnwb::sweep {

int tpeGamma(int n) {
    return std::min(int(std::ceil(0.1 * n)), 25);
}

std::vector<double> tpeWeights(int n) {
    if (n < 25) return std::vector<double>(size_t(std::max(n, 0)), 1.0);
    std::vector<double> w;
    const int ramp = n - 25;
    for (int i = 0; i < ramp; ++i)
        w.push_back(ramp == 1 ? 1.0 / n : 1.0 / n + (1.0 - 1.0 / n) * i / (ramp - 1));
    w.insert(w.end(), 25, 1.0);
    return w;
}

namespace {

class TpeSampler : public Sampler {
public:
    TpeSampler(const SearchSpace& space, uint64_t seed, TpeOptions o)
        : space_(space), seed_(seed), o_(o), random_(makeRandomSampler(space, seed)) {}

    std::optional<nlohmann::json> ask(const History& history, int number) override {
        std::vector<const TrialRecord*> complete, pruned, running;
        for (const TrialRecord& t : history) {
            if (t.state == TrialState::Complete && t.value)
                complete.push_back(&t);
            else if (t.state == TrialState::Pruned && t.last())
                pruned.push_back(&t);
            else if (t.state == TrialState::Running && o_.constantLiar)
                running.push_back(&t);
        }
        const int n = int(complete.size() + pruned.size());
        if (n < o_.nStartup) return random_->ask(history, number);
        // Best first: complete by value; pruned by the furthest epoch reached, then its value.
        std::stable_sort(complete.begin(), complete.end(),
                         [](auto* a, auto* b) { return *a->value < *b->value; });
        std::stable_sort(pruned.begin(), pruned.end(), [](auto* a, auto* b) {
            const auto la = *a->last(), lb = *b->last();
            return la.first != lb.first ? la.first > lb.first : la.second < lb.second;
        });
        std::vector<const TrialRecord*> ranked = complete;
        ranked.insert(ranked.end(), pruned.begin(), pruned.end());
        const size_t nBelow = size_t(tpeGamma(n));
        std::vector<const TrialRecord*> below(ranked.begin(), ranked.begin() + nBelow);
        std::vector<const TrialRecord*> above(ranked.begin() + nBelow, ranked.end());
        above.insert(above.end(), running.begin(), running.end());
        auto byNumber = [](auto* a, auto* b) { return a->number < b->number; };
        std::sort(below.begin(), below.end(), byNumber);
        std::sort(above.begin(), above.end(), byNumber);

        Rng rng(trialSeed(seed_ ^ 0x7E5Eull, number));
        nlohmann::json config = nlohmann::json::object();
        for (const ParamDef& p : space_.params()) {
            if (!SearchSpace::active(p, config)) continue;
            const ParzenEstimator l = estimator(p, below);
            const ParzenEstimator g = estimator(p, above);
            double best = 0.0, bestScore = -INFINITY;
            for (int c = 0; c < o_.nCandidates; ++c) {
                const double x = l.sample(rng);
                const double score = l.logPdf(x) - g.logPdf(x);
                if (score > bestScore) {
                    bestScore = score;
                    best = x;
                }
            }
            config[p.name] = ParzenEstimator::fromInternal(p, best);
        }
        return config;
    }

private:
    ParzenEstimator estimator(const ParamDef& p, const std::vector<const TrialRecord*>& group) {
        std::vector<double> obs;
        for (const TrialRecord* t : group) {
            auto it = t->params.find(p.name);
            if (it != t->params.end() && p.admits(*it))
                obs.push_back(ParzenEstimator::toInternal(p, *it));
        }
        return ParzenEstimator(p, obs, tpeWeights(int(obs.size())), o_.priorWeight);
    }

    SearchSpace space_;
    uint64_t seed_;
    TpeOptions o_;
    std::unique_ptr<Sampler> random_;
};

}  // namespace

std::unique_ptr<Sampler> makeTpeSampler(const SearchSpace& space, uint64_t seed,
                                        TpeOptions options) {
    return std::make_unique<TpeSampler>(space, seed, options);
}

}  // namespace nnwb::sweep
