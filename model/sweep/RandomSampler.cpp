#include "model/Rng.h"
#include "model/sweep/Sampler.h"

namespace nnwb::sweep {

uint64_t trialSeed(uint64_t seed, int number) {
    uint64_t z = seed ^ (0x9E3779B97F4A7C15ull * (static_cast<uint64_t>(number) + 1));
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

namespace {

class RandomSampler : public Sampler {
public:
    RandomSampler(const SearchSpace& space, uint64_t seed) : space_(space), seed_(seed) {}
    std::optional<nlohmann::json> ask(const History&, int number) override {
        Rng rng(trialSeed(seed_, number));
        std::vector<double> u(space_.size());
        for (double& x : u) x = rng.uniform();
        return space_.toConfig(u);
    }

private:
    SearchSpace space_;
    uint64_t seed_;
};

}  // namespace

std::unique_ptr<Sampler> makeRandomSampler(const SearchSpace& space, uint64_t seed) {
    return std::make_unique<RandomSampler>(space, seed);
}

}  // namespace nnwb::sweep
