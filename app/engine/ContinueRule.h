// The one rule for whether a kept run can be continued with an experiment: the window offers
// Continue only when it holds, and the run engine refuses to continue otherwise. Pure function
// of two experiments; any thread.
#pragma once

#include <string>

#include "model/Experiment.h"

namespace nnwb {

// Empty when `next` can continue the run trained with `kept`: same model, data (its file made
// absolute), device and batch size. Otherwise what changed, as a sentence fragment
// ("the batch size changed from 64 to 32").
std::string continueRefusal(const Experiment& kept, const Experiment& next);

inline bool canContinue(const Experiment& kept, const Experiment& next) {
    return continueRefusal(kept, next).empty();
}

}  // namespace nnwb
