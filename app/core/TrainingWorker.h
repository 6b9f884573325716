// The training worker: a QObject moved to its own QThread (Qt's worker-object pattern). It
// owns the backend, the network, the trainer and every device buffer, works on its own copy of
// the experiment and reports only through queued signals carrying small value types. Its slots
// run on the worker thread only; construct it anywhere, then moveToThread() before start().
// Other threads hand it calls through post() (a CallQueue).
#pragma once

#include <atomic>
#include <functional>
#include <memory>

#include <QObject>
#include <QString>

class QTemporaryDir;

#include "app/core/CallQueue.h"
#include "app/core/TrainingSignals.h"
#include "app/core/TrainingTypes.h"
#include "app/core/WalkForwardTypes.h"
#include "app/engine/RunEngine.h"
#include "app/runs/RunRecorder.h"
#include "model/Experiment.h"
#include "model/ModelBundle.h"
#include "model/TrainControl.h"

namespace nnwb {

class EnsembleCurve;
struct EnsembleBundle;

class TrainingWorker : public TrainingSignals {
    Q_OBJECT
public:
    explicit TrainingWorker(QObject* parent = nullptr);
    ~TrainingWorker() override;

    // Any thread: which validation sample the next attention snapshot shows.
    void setScoreSample(int sample) { scoreSample_.store(sample); }
    // Any thread: whether snapshots show the best epoch's weights (else the latest ones).
    void setScoresOfBest(bool best) { scoresOfBest_.store(best); }
    int scoreSample() const { return scoreSample_.load(); }
    // Any thread: runs `call` on the worker's thread, after the calls posted before it.
    void post(std::function<void()> call) { calls_.post(std::move(call)); }

public Q_SLOTS:
    // Prepares a run of the experiment on the run engine (data, backend, network) and trains
    // experiment.training.epochs epochs (with training.ensemble N > 1: N seeds as one
    // population kept as one ensemble, TrainingWorkerEnsemble.cpp); the calls posted meanwhile
    // (scores, saving) are served between epochs. Ends with runFinished(). An experiment whose
    // validation.mode is walkforward runs every fold instead (app/engine/WalkForward, as nnwb-cli
    // walkforward): walkForwardPlanned(), then per fold foldStarted(), runStarted() and its epochs,
    // foldEnded(); then walkForwardFinished() and runFinished(). It keeps no model.
    // The run is recorded in the run store as `recording` says (see RunRecorder).
    void start(const nnwb::Experiment& experiment, std::shared_ptr<nnwb::TrainControl> control,
               const nnwb::RecordingOptions& recording = nnwb::RecordingOptions::none());
    // Trains training.epochs more epochs on the kept network, optimizer and epoch numbering
    // (from the best epoch's weights with ContinueBest). The model and data sections must be
    // those of the kept run; otherwise the run fails with the reason and nothing is lost. A
    // continued run is recorded as a run of its own whose epochs go on from the kept ones.
    void continueRun(const nnwb::Experiment& experiment,
                     std::shared_ptr<nnwb::TrainControl> control, nnwb::StartMode mode,
                     const nnwb::RecordingOptions& recording = nnwb::RecordingOptions::none());
    // Loads a weights file (safetensors, as Export Weights writes) into a freshly built
    // network of `experiment` (new optimizer, epoch count 0), with the checks of nnwb-cli
    // --load-weights (names, shapes); a refused file changes nothing. Emits weightsLoaded(),
    // then on a price file modelSignals().
    // `epoch`: the epoch the weights come from (-1: the model bundle's, 0 for plain weights).
    void loadWeights(const nnwb::Experiment& experiment, const QString& path, int epoch = -1);
    // Reads the Score matrices of validation sample `sample` from the device (between epochs
    // or after a run, while the trained network is kept) and emits attentionReady().
    void requestScores(int sample);
    // Writes the run's result as safetensors: the best epoch's weights when the experiment
    // keeps the best (training.keepBest), else the current ones; after a failed run (or one
    // that could not start) the kept host copy. Emits weightsSaved().
    void saveWeights(const QString& path);
    // Packs the run's result (the best epoch's weights with keepBest, else the last completed
    // epoch's) with the run's data settings and statistics; emits bundleReady().
    void makeBundle();
    // Exports the run's result (the best epoch's weights with keepBest, else those of the last
    // completed epoch) as an ONNX model (raw features in, [batch, 3] out; see
    // app/export/OnnxExport.h) with a fixed batch (0 = dynamic), the training part's
    // normalization statistics taken from the run's data. Emits onnxExported().
    void exportOnnx(const QString& path, int batch);
    // Writes DIR/model.onnx and the Expert Advisor DIR/nnwb_expert.mq5 for the run's result, as
    // `nnwb-cli export --mql5 DIR` does (onnxexport::writeMql5Export of its bundle). Emits
    // mql5Exported().
    void exportMql5(const QString& dir);

private Q_SLOTS:
    void runQueuedCalls() { calls_.run(); }

private:
    // Trains on engine_ (the one epoch loop is the engine's) and reports the end.
    void train(int epochs, StartMode mode, const RecordingOptions& recording);
    void trainSoon(int epochs, StartMode mode, const RecordingOptions& recording);
    // An ensemble's run (training.ensemble > 1, TrainingWorkerEnsemble.cpp): the members as
    // one population on engine_, the ensemble's epochs, then the ensemble kept and recorded.
    void trainEnsemble(int epochs, const RecordingOptions& recording);
    // Keeps and records the trained ensemble; returns the run's summary line. Throws
    // EnsembleError (or std::exception) when it cannot be kept.
    QString keepEnsemble(const EnsembleCurve& curve, const RecordingOptions& record);
    // The ensemble's best member (lowest validation loss) as one network on the run's data
    // (memberView_), for the attention pane: its Score matrices of the current sample and in
    // `label` "member k of N, seed S"; null (and no view kept) when it has no attention layer.
    AttentionSnapshotPtr viewBestMember(const EnsembleBundle& bundle, std::string& label);
    // The engine whose Score matrices the attention pane shows: the kept ensemble's member view,
    // else the kept run's (none for a population's: its network is all the members').
    RunEngine* scoresEngine() const;
    // Runs every fold of experiment_ (TrainingWorkerWalkForward.cpp) and reports the end.
    void walkForward(const RecordingOptions& recording);
    // Starts the posted run that waited for the current one to stop, if any.
    // After a stop: the last completed epoch's weights back in the network.
    void restoreLastEpoch();
    void runDeferred();
    void finish(RunEnd end, const QString& message);
    void fail(const QString& message);
    void emitScores(int sample);
    void emitRunStarted(bool continued);
    // What the run (or the loaded weights) train and validate on: device, sizes, bars, split.
    RunInfo runInfo(bool continued) { return runInfo(*engine_, continued); }
    static RunInfo runInfo(RunEngine& run, bool continued);
    // Runs the loaded weights over the validation part; emits modelSignals().
    void emitModelSignals();
    // The kept run's engine has its network on the device.
    bool hasCompute() const { return engine_ && engine_->hasCompute(); }

    Experiment experiment_;
    std::shared_ptr<TrainControl> control_;
    // The kept run: its network, trainer and the host copies of its result's weights. After a
    // run that could not start, only the host copies (compute released).
    std::unique_ptr<RunEngine> engine_;
    // After an ensemble run: the folder of its kept bundle (EnsembleKept::file) until the next
    // ensemble is kept, and its best member as one network for the heatmaps (null: none).
    std::unique_ptr<QTemporaryDir> ensembleDir_;
    std::unique_ptr<RunEngine> memberView_;
    bool runFailed_ = false;  // the last run ended in an error
    bool running_ = false;
    // A start posted while a run is going (served between its epochs): it runs once the
    // current run has stopped.
    std::function<void()> deferred_;
    std::atomic<int> scoreSample_{0};
    std::atomic<bool> scoresOfBest_{false};
    CallQueue calls_{this, "runQueuedCalls"};
};

}  // namespace nnwb
