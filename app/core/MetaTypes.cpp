#include "app/core/MetaTypes.h"

namespace nnwb {

void registerMetaTypes() {
    qRegisterMetaType<nnwb::EpochReport>("nnwb::EpochReport");
    qRegisterMetaType<nnwb::EnsembleKept>("nnwb::EnsembleKept");
    qRegisterMetaType<nnwb::RunInfo>("nnwb::RunInfo");
    qRegisterMetaType<nnwb::TrainingProgress>("nnwb::TrainingProgress");
    qRegisterMetaType<nnwb::AttentionSnapshotPtr>("nnwb::AttentionSnapshotPtr");
    qRegisterMetaType<nnwb::RunEnd>("nnwb::RunEnd");
    qRegisterMetaType<nnwb::WalkForwardPlan>("nnwb::WalkForwardPlan");
    qRegisterMetaType<nnwb::FoldRecord>("nnwb::FoldRecord");
    qRegisterMetaType<nnwb::WalkForwardOutcome>("nnwb::WalkForwardOutcome");
}

}  // namespace nnwb
