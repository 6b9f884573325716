#include <algorithm>

#include "model/sweep/Sampler.h"
#include "model/sweep/SobolSequence.h"

namespace nnwb::sweep {

namespace {

class SobolSampler : public Sampler {
public:
    SobolSampler(const SearchSpace& space, uint64_t seed)
        : space_(space), sequence_(int(std::max<size_t>(1, space.size())), seed) {}
    std::optional<nlohmann::json> ask(const History&, int number) override {
        std::vector<double> u = sequence_.point(static_cast<uint64_t>(number));
        u.resize(space_.size());
        return space_.toConfig(u);
    }

private:
    SearchSpace space_;
    SobolSequence sequence_;
};

}  // namespace

std::unique_ptr<Sampler> makeSobolSampler(const SearchSpace& space, uint64_t seed) {
    return std::make_unique<SobolSampler>(space, seed);
}

}  // namespace nnwb::sweep
