#include "app/core/RunPresenter.h"

#include <utility>

#include "app/engine/ContinueRule.h"
#include "app/runs/RunsDbPath.h"

namespace nnwb {

namespace {
// What results belong to: the data settings (the file as an absolute path, so that a stored
// run's absolute path equals the experiment's relative one) and the layer stack.
nlohmann::json resultsKey(const Experiment& e) {
    return {{"data", e.dataWithAbsoluteFile()},
            {"layers", e.model.value("layers", nlohmann::json::array())}};
}
}  // namespace

RunPresenter::RunPresenter(QObject* parent) : QObject(parent) {
    recording_.source = "window";
}

void RunPresenter::setRecording(const QString& dbPath, bool enabled) {
    recording_.enabled = enabled;
    recording_.dbPath = dbPath.toStdString();
}

RecordingOptions RunPresenter::recordingFor(const QString& experimentFile) const {
    RecordingOptions o = recording_;
    o.experimentFile = experimentFile.toStdString();
    return o;
}

QString RunPresenter::databasePath() const {
    return QString::fromStdString(runsDbPath(recording_.dbPath));
}

QString RunPresenter::shownDatabase() const {
    return recording_.enabled || !recording_.dbPath.empty() ? databasePath() : QString();
}

bool RunPresenter::takeRecordingWarning() {
    return !std::exchange(recordingWarned_, true);
}

void RunPresenter::setHaveWeights(bool have) {
    if (have == haveWeights_) return;
    haveWeights_ = have;
    Q_EMIT weightsChanged(have);
}

void RunPresenter::runStarting(const Experiment& e, StartMode mode) {
    running_ = e;
    if (mode == StartMode::Restart) {
        trained_.reset();
        setHaveWeights(false);  // a fresh network: none until its first epoch
    }
    weightsFromFile_ = false;  // continued, they have an optimizer state and epochs
    modelEpoch_ = 0;
}

void RunPresenter::epochDone() {
    setHaveWeights(true);
}

void RunPresenter::runEnded(bool trained) {
    if (trained && running_) trained_ = running_;
    running_.reset();
}

void RunPresenter::loadingWeights(const Experiment& e, int modelEpoch) {
    loading_ = e;
    loadingEpoch_ = modelEpoch;
}

void RunPresenter::weightsLoaded(bool ok, const Experiment& current) {
    const std::optional<Experiment> e = std::exchange(loading_, std::nullopt);
    modelEpoch_ = ok ? loadingEpoch_ : 0;
    loadingEpoch_ = 0;
    if (!ok) return;
    trained_ = e ? *e : current;
    weightsFromFile_ = true;
    setHaveWeights(true);
}

std::string RunPresenter::continueRefusal(const Experiment& e) const {
    if (!trained_) return "there are no trained or loaded weights";
    return nnwb::continueRefusal(*trained_, e);
}

bool RunPresenter::canContinue(const Experiment& e) const {
    return trained_ && nnwb::canContinue(*trained_, e);
}

void RunPresenter::resultsFrom(const Experiment& e) {
    resultsOf_ = resultsKey(e);
}

void RunPresenter::resultsFromStored(const nlohmann::json& experiment) {
    if (experiment.contains("data") && experiment.contains("model"))
        resultsOf_ = resultsKey(Experiment::fromJson(experiment, "."));
}

bool RunPresenter::resultsAreStale(bool hasResults, const Experiment& e) const {
    if (!hasResults || resultsOf_.is_null()) return false;
    return resultsOf_ != resultsKey(e);
}

}  // namespace nnwb
