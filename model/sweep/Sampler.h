// The samplers of a sweep: each proposes the configuration of the next trial from the space and
// the history so far (running trials included, so parallel asks differ). Deterministic: the
// proposal depends only on the seed, the history and the trial number asked for, so a resumed
// sweep continues as the stored history says. Use one sampler from one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "model/sweep/SearchSpace.h"
#include "model/sweep/Trial.h"

namespace nnwb::sweep {

class Sampler {
public:
    virtual ~Sampler() = default;
    // The configuration of trial `number` (history holds every earlier trial, in any state);
    // none when the method has nothing left to propose (a finished grid).
    virtual std::optional<nlohmann::json> ask(const History& history, int number) = 0;
};

// grid: every combination of the parameters' grid values (conditional ones only where active),
// in order, the first one no trial in the history has.
std::unique_ptr<Sampler> makeGridSampler(const SearchSpace& space);
// random: each coordinate uniform, from an Rng seeded by (seed, number).
std::unique_ptr<Sampler> makeRandomSampler(const SearchSpace& space, uint64_t seed);
// sobol: point `number` of the Sobol sequence (Joe & Kuo direction numbers) with a random
// digital shift from the seed (seed 0: no shift); at most SobolSequence::kMaxDimensions
// parameters.
std::unique_ptr<Sampler> makeSobolSampler(const SearchSpace& space, uint64_t seed);

// A 64-bit mix of (seed, number), for per-trial random streams.
uint64_t trialSeed(uint64_t seed, int number);

}  // namespace nnwb::sweep
