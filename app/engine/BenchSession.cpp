#include "app/engine/BenchSession.h"

#include "model/Network.h"
#include "model/PopulationSpec.h"
#include "model/Rng.h"

namespace nnwb {

std::shared_ptr<const ExperimentData> benchData(const Experiment& experiment, size_t samples,
                                                uint64_t seed) {
    const Shape in = experimentInputShape(experiment);
    const int outputs = static_cast<int>(
        Network(Network::layersFromJson(experiment.model), in).outputShape().size());
    auto data = std::make_shared<ExperimentData>();
    data->ok = true;
    data->description = "random data";
    DataSplit& d = data->split;
    Rng rng(seed);
    d.train.inputShape = in;
    d.train.outputs = outputs;
    d.train.x.resize(samples * in.size());
    for (auto& v : d.train.x) v = static_cast<float>(rng.normal());
    d.train.y.assign(samples * static_cast<size_t>(outputs), 0.0f);
    for (size_t s = 0; s < samples; ++s) d.train.y[s * outputs + rng.below(outputs)] = 1.0f;
    d.validation.inputShape = in;
    d.validation.outputs = outputs;
    return data;
}

std::unique_ptr<TrainingSession> benchSession(const Experiment& experiment, int population,
                                              size_t samples, uint64_t seed) {
    return std::make_unique<TrainingSession>(populationMembers(experiment, population, {}),
                                             benchData(experiment, samples, seed));
}

}  // namespace nnwb
