// The state of the window's run, kept out of the widgets: the experiment the worker's weights
// were trained (or loaded) with and whether Train may continue them (the one Continue rule of
// app/engine/ContinueRule.h, which the run engine applies too), the experiment the results on
// show come from (stale when the document's data or layer stack differ), the epoch of an opened
// run model, and where runs are recorded. GUI thread (the thread of the window that owns it).
#pragma once

#include <optional>
#include <string>

#include <QObject>
#include <QString>

#include "app/core/TrainingTypes.h"
#include "app/runs/RunRecorder.h"
#include "model/Experiment.h"

namespace nnwb {

class RunPresenter : public QObject {
    Q_OBJECT
public:
    explicit RunPresenter(QObject* parent = nullptr);

    // --- Recording: `dbPath` empty is the default store; `enabled` false records nothing.
    void setRecording(const QString& dbPath, bool enabled);
    const RecordingOptions& recording() const { return recording_; }
    // The options of a run of the experiment file `experimentFile` ("" if unsaved).
    RecordingOptions recordingFor(const QString& experimentFile) const;
    QString databasePath() const;  // the store's path (the default resolved)
    // The store the Runs tab shows ("" when runs are not recorded and no path was given).
    QString shownDatabase() const;
    // True the first time only: the run store's warning is shown once per session.
    bool takeRecordingWarning();

    // --- Weights and Continue.
    // A run starts on `e`; Restart drops the weights until its first epoch.
    void runStarting(const Experiment& e, StartMode mode);
    void epochDone();  // the worker has weights (of the run started)
    // The run ended; `trained`: it left weights of at least one epoch (not failed).
    void runEnded(bool trained);
    // Weights are being loaded for `e` (a file, or a stored run's model of `modelEpoch`).
    void loadingWeights(const Experiment& e, int modelEpoch = 0);
    // The worker's answer; `current` (the document's experiment) stands in for a load that
    // was not announced by loadingWeights.
    void weightsLoaded(bool ok, const Experiment& current);
    bool haveWeights() const { return haveWeights_; }
    bool weightsFromFile() const { return weightsFromFile_; }
    // The epoch of an opened run model whose results are on show (0: none).
    int modelEpoch() const { return modelEpoch_; }
    void clearModelEpoch() { modelEpoch_ = 0; }
    // Train may continue the kept weights with `e` (continueRefusal is empty).
    bool canContinue(const Experiment& e) const;
    // Why not ("" when it can): no weights, or what changed (the engine's words).
    std::string continueRefusal(const Experiment& e) const;

    // --- Results on show (charts, confusion matrix, heatmaps).
    void resultsFrom(const Experiment& e);
    // A stored run's experiment (JSON); ignored when it lacks data or model.
    void resultsFromStored(const nlohmann::json& experiment);
    // Results on show come from other data or another layer stack than `e`.
    bool resultsAreStale(bool hasResults, const Experiment& e) const;

Q_SIGNALS:
    void weightsChanged(bool have);

private:
    void setHaveWeights(bool have);

    RecordingOptions recording_;
    bool recordingWarned_ = false;
    std::optional<Experiment> running_;  // the run's experiment, until it ends
    std::optional<Experiment> trained_;  // the worker's weights were trained/loaded with it
    std::optional<Experiment> loading_;  // weights being loaded for it
    int loadingEpoch_ = 0;
    bool haveWeights_ = false;      // trained or loaded weights in the worker
    bool weightsFromFile_ = false;  // loaded (no optimizer state, epochs from 1)
    int modelEpoch_ = 0;
    nlohmann::json resultsOf_;  // data and layers of the run whose results are on show
};

}  // namespace nnwb
