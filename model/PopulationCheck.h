// Whether a set of experiments can train together as one population (docs/decisions/
// population.md): they must share everything that shapes the computation (data, model, batch,
// epochs, loss, device, clipping, validation) and may differ in seed, optimizer values,
// schedule, class weights, early stopping and keepBest. Pure host work; any thread.
#pragma once

#include <string>
#include <vector>

#include "model/Experiment.h"

namespace nnwb {

// The training keys (under "training") in which the models of a population may differ.
const std::vector<std::string>& populationVaryingKeys();

// Empty when `members` can train as one population; else what differs and where, e.g.
// "model 3 differs from model 1 in training.batchSize (64, not 32): ...".
std::string populationRefusal(const std::vector<Experiment>& members);

}  // namespace nnwb
