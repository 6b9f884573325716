// The GUI-side facade of training: starts a run of a copy of an experiment on the worker
// thread, pauses, resumes and stops it (within one batch, through TrainControl), forwards the
// worker's signals and shuts the thread down cleanly (stop, quit(), wait()) on destruction.
// Lives on and is used from the GUI (main) thread only. Calls to the worker and its signals
// back cross threads through CallQueues (std::mutex hand-offs that ThreadSanitizer sees).
#pragma once

#include <memory>
#include <mutex>

#include <QObject>
#include <QThread>

#include "app/core/CallQueue.h"
#include "app/core/MetaTypes.h"
#include "app/core/TrainingSignals.h"
#include "app/runs/RunRecorder.h"
#include "model/Experiment.h"
#include "model/ModelBundle.h"
#include "model/TrainControl.h"

namespace nnwb {

class TrainingWorker;

class TrainingController : public TrainingSignals {
    Q_OBJECT
public:
    enum class State { Idle, Running, Paused, Stopping };
    Q_ENUM(State)

    explicit TrainingController(QObject* parent = nullptr);
    ~TrainingController() override;

    State state() const { return state_; }
    bool isBusy() const { return state_ != State::Idle; }
    // Starts a run of `experiment` (copied); `epochs` > 0 overrides training.epochs.
    // Returns false when a run is already going.
    bool start(const Experiment& experiment, int epochs = 0, StartMode mode = StartMode::Restart);
    // Loads a weights file into the worker's network for `experiment` (see
    // TrainingWorker::loadWeights); answered by weightsLoaded(). Not while a run is going.
    void loadWeights(const Experiment& experiment, const QString& path, int epoch = -1);
    // How the next runs are recorded in the run store (default: not at all).
    void setRecording(const RecordingOptions& options) { recording_ = options; }
    const RecordingOptions& recording() const { return recording_; }
    void pause();
    void resume();
    void stop();
    // Which validation sample the attention snapshots show; answered between epochs.
    void requestScores(int sample);
    // Attention snapshots of the best epoch's weights (true) or the latest (false); asks for
    // the current sample again.
    void setScoresOfBest(bool best);
    void saveWeights(const QString& path);
    // Asks the worker for the trained model as a bundle; answered by bundleReady().
    void requestBundle();
    // The run's result (best epoch where kept) as an ONNX model (batch 0 = dynamic); answers
    // with onnxExported().
    void exportOnnx(const QString& path, int batch);
    // DIR/model.onnx plus the MetaTrader 5 Expert Advisor, as `nnwb-cli export --mql5 DIR`;
    // written on the worker thread; answers with mql5Exported().
    void exportMql5(const QString& dir);
    // Stops a run and ends the worker thread; waits for it. Idempotent.
    void shutdown();

    // Its other signals are the worker's (TrainingSignals), emitted again here on the GUI
    // thread; runFinished() after the state went back to Idle.
Q_SIGNALS:
    void stateChanged(nnwb::TrainingController::State state);

private Q_SLOTS:
    void runQueuedCalls() { fromWorker_.run(); }

private:
    void setState(State s);
    void finished(RunEnd end, const QString& message);

    CallQueue fromWorker_{this, "runQueuedCalls"};  // the worker's signals, run here
    std::mutex workerEnd_;  // unlocked by the worker's last act on its thread (see shutdown())
    QThread thread_;
    TrainingWorker* worker_ = nullptr;  // lives on thread_, deleted when it finishes
    std::shared_ptr<TrainControl> control_;
    RecordingOptions recording_ = RecordingOptions::none();
    State state_ = State::Idle;
    bool shutDown_ = false;
};

}  // namespace nnwb
