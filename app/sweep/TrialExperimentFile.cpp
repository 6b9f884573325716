#include "app/sweep/TrialExperimentFile.h"

#include "model/AtomicFile.h"
#include "model/Experiment.h"

namespace nnwb {

void writeTrialExperiment(const Experiment& e, const std::string& path) {
    // The bytes Experiment::save writes; writeFileAtomic's rules (a link followed, a device
    // written in place), without its syncs.
    writeFileAtomic(path, e.toJson().dump(2) + "\n", false);
}

}  // namespace nnwb
