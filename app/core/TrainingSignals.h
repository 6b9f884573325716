// The signals of a training run, declared once: TrainingWorker emits them on the worker thread
// and TrainingController, which forwards each through its CallQueue, emits them again on the
// GUI thread. A base class of both, with no slots and no state; each object emits on the
// thread it lives on.
#pragma once

#include <memory>

#include <QObject>
#include <QString>

#include "app/core/MetaTypes.h"
#include "model/ModelBundle.h"

namespace nnwb {

class TrainingSignals : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

Q_SIGNALS:
    void runStarted(const nnwb::RunInfo& info);
    // After loadWeights on a price file: the loaded model's outputs on the validation part
    // (report.validationOutputs; report.epoch the weights' epoch) with the run's bars and split.
    void modelSignals(const nnwb::RunInfo& info, const nnwb::EpochReport& report);
    void progress(const nnwb::TrainingProgress& p);
    void epochFinished(const nnwb::EpochReport& report);
    // An ensemble run (training.ensemble > 1): each member's epoch report (report.model the
    // member), before the ensemble's own epoch comes as epochFinished(); after the run, the
    // kept ensemble (before runFinished()).
    void memberEpochFinished(const nnwb::EpochReport& report);
    void ensembleKept(const nnwb::EnsembleKept& kept);
    void attentionReady(const nnwb::AttentionSnapshotPtr& snapshot);
    void runFinished(nnwb::RunEnd end, const QString& message);
    void weightsSaved(bool ok, const QString& message);
    // The bundle, or null and the reason.
    void bundleReady(std::shared_ptr<const nnwb::ModelBundle> bundle, const QString& error);
    void weightsLoaded(bool ok, const QString& message);
    // ok: message is the path; else the reason.
    void onnxExported(bool ok, const QString& message);
    // ok: message is the .mq5's path; else the reason.
    void mql5Exported(bool ok, const QString& message);
    // The run store cannot be written; the run goes on unrecorded (at most once per run).
    void recordingWarning(const QString& message);
    // Walk-forward: the folds planned on the loaded bars; each fold's start and end (the
    // record has its periods, then its epochs and figures); the outcome, before runFinished().
    void walkForwardPlanned(const nnwb::WalkForwardPlan& plan);
    void foldStarted(const nnwb::FoldRecord& record);
    void foldEnded(const nnwb::FoldRecord& record);
    void walkForwardFinished(const nnwb::WalkForwardOutcome& outcome);
};

}  // namespace nnwb
