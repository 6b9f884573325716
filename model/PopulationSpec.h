// The members of a population from one base experiment: N copies that differ where `vary`
// lists say ("seed=1..32", "optimizer.learningRate=0.001,0.003"), each checked as an experiment
// file checks its training section. What `nnwb-cli train --population` and `bench
// --population` build. Pure host work; any thread.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "model/Experiment.h"

namespace nnwb {

class PopulationSpecError : public std::invalid_argument {
public:
    explicit PopulationSpecError(const std::string& what) : std::invalid_argument(what) {}
};

// `models` members of `base`. Each vary item is KEY=VALUES with KEY a training key the models
// may differ in (populationVaryingKeys(), or optimizer.* but optimizer.type) and VALUES either
// an integer range A..B of `models` values or `models` comma-separated values (or one, for
// all). Without a seed item, model m gets the base seed + m. Member m's name is the base name
// with its varied values ("default seed=3 optimizer.learningRate=0.001"). Throws
// PopulationSpecError naming the item.
std::vector<Experiment> populationMembers(const Experiment& base, int models,
                                          const std::vector<std::string>& vary);

}  // namespace nnwb
