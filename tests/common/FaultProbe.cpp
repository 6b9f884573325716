#include "common/FaultProbe.h"

#include "compute/OpenClBackend.h"
#include "model/ExperimentData.h"
#include "model/NetworkWeights.h"
#include "model/Trainer.h"

namespace nnwb::test {

FaultProbe probeMidEpochFault(const Experiment& experiment, const std::string& id) {
    const ExperimentData data = loadExperimentData(experiment);
    if (!data.ok) throw std::runtime_error(data.error);
    auto be = OpenClBackend::create(id);
    Network net(Network::layersFromJson(experiment.model), data.split.train.inputShape);
    Trainer trainer(*be, net, experiment.training, data.split);
    FaultProbe p;
    trainer.runEpoch();
    const uint64_t afterEpoch1 = be->enqueueCount();
    p.epoch1Weights = readWeights(net);
    const uint64_t afterRead = be->enqueueCount();
    trainer.runEpoch();
    const uint64_t epoch2 = be->enqueueCount() - afterRead;
    p.failAt = afterEpoch1 + (afterRead - afterEpoch1) + epoch2 / 2;
    return p;
}

}  // namespace nnwb::test
