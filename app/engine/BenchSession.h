// The assembly `nnwb-cli bench` times: the TrainingSession every run trains with (backend,
// memory check, network, Trainer of model/TrainingSession.h), on random inputs and one-hot
// targets of the experiment's shapes instead of its data (no file is read). Qt-free; create,
// use and destroy the session on one thread (the one that owns its backend).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "model/Experiment.h"
#include "model/TrainingSession.h"

namespace nnwb {

// `samples` random training samples (no validation part) of experiment's input and output
// shapes, seeded by `seed`; ok is set (bench data has no file to fail).
std::shared_ptr<const ExperimentData> benchData(const Experiment& experiment, size_t samples,
                                                uint64_t seed = 1);
// The session of `population` models of the experiment, seeds apart (model/PopulationSpec.h;
// 1: the single run), on benchData. Throws as TrainingSession does (ComputeError for the
// device or its memory, TrainingError for members a population cannot hold).
std::unique_ptr<TrainingSession> benchSession(const Experiment& experiment, int population,
                                              size_t samples, uint64_t seed = 1);

}  // namespace nnwb
