#include "model/RunFailure.h"

#include "compute/ComputeError.h"
#include "model/Network.h"
#include "model/TrainingSession.h"

namespace nnwb {

std::string describeRunFailure(const std::exception& e, bool sentence) {
    const char* kind = nullptr;
    if (dynamic_cast<const DataLoadError*>(&e))
        kind = sentence ? "Data: " : "data: ";
    else if (dynamic_cast<const ShapeError*>(&e))
        kind = sentence ? "Model: " : "model: ";
    else if (dynamic_cast<const ComputeError*>(&e))
        kind = sentence ? "Device: " : "device: ";
    return kind ? kind + std::string(e.what()) : std::string(e.what());
}

}  // namespace nnwb
