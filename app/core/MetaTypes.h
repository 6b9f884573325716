// Qt meta-type declarations for every value type that crosses threads in a queued signal
// (epoch reports, progress, attention snapshots, run info, walk-forward plans and folds). Call
// registerMetaTypes() once before the first connection (main() and the tests do). Any thread.
#pragma once

#include <QMetaType>

#include "app/core/TrainingTypes.h"
#include "app/core/WalkForwardTypes.h"
#include "model/Trainer.h"

Q_DECLARE_METATYPE(nnwb::EpochReport)
Q_DECLARE_METATYPE(nnwb::RunInfo)
Q_DECLARE_METATYPE(nnwb::EnsembleKept)
Q_DECLARE_METATYPE(nnwb::TrainingProgress)
Q_DECLARE_METATYPE(nnwb::AttentionSnapshotPtr)
Q_DECLARE_METATYPE(nnwb::RunEnd)
Q_DECLARE_METATYPE(nnwb::WalkForwardPlan)
Q_DECLARE_METATYPE(nnwb::FoldRecord)
Q_DECLARE_METATYPE(nnwb::WalkForwardOutcome)

namespace nnwb {

void registerMetaTypes();

}  // namespace nnwb
