#include "app/engine/ContinueRule.h"

namespace nnwb {

std::string continueRefusal(const Experiment& kept, const Experiment& next) {
    if (next.model != kept.model) return "the model changed since those weights were trained";
    if (next.dataWithAbsoluteFile() != kept.dataWithAbsoluteFile())
        return "the data settings changed since those weights were trained";
    if (next.training.device != kept.training.device)
        return "the device changed from " + kept.training.device + " to " + next.training.device;
    if (next.training.batchSize != kept.training.batchSize)
        return "the batch size changed from " + std::to_string(kept.training.batchSize) + " to " +
               std::to_string(next.training.batchSize);
    return {};
}

}  // namespace nnwb
