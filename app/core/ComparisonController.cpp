#include "app/core/ComparisonController.h"

#include <QCoreApplication>

namespace nnwb {

ComparisonController::ComparisonController(QObject* parent) : QObject(parent) {
    registerMetaTypes();
}

ComparisonController::~ComparisonController() {
    shutdown();
    calls_.close();
}

bool ComparisonController::isBusy() const {
    return busy_;
}

bool ComparisonController::isRunning(int run) const {
    return busy_ && run >= 0 && run < runCount() && !set_.runs[size_t(run)].record.finished();
}

AttentionSnapshotPtr ComparisonController::scores(int run) const {
    return run >= 0 && run < static_cast<int>(scores_.size()) ? scores_[size_t(run)] : nullptr;
}

ComparisonRunner::Callbacks ComparisonController::callbacks() {
    // Each report crosses to the GUI thread through calls_ with its data copied.
    ComparisonRunner::Callbacks cb;
    cb.started = [this](size_t i, const RunRecord& r) {
        calls_.post([this, i, r] {
            if (i >= set_.runs.size()) return;
            RunRecord& mine = set_.runs[i].record;
            mine.deviceName = r.deviceName;
            mine.parameters = r.parameters;
            mine.trainSamples = r.trainSamples;
            mine.validationSamples = r.validationSamples;
            mine.status = RunStatus::Running;
            Q_EMIT runChanged(int(i));
        });
    };
    cb.progress = [this](size_t i, const TrainingProgress& p) {
        calls_.post([this, i, p] { Q_EMIT runProgress(int(i), p); });
    };
    cb.epoch = [this](size_t i, const RunRecord&, const EpochReport& report) {
        calls_.post([this, i, report] {
            if (i >= set_.runs.size()) return;
            set_.runs[i].record.epochs.push_back(report);
            Q_EMIT epochFinished(int(i), report);
            Q_EMIT runChanged(int(i));
        });
    };
    cb.scores = [this](size_t i, const AttentionSnapshotPtr& snap) {
        calls_.post([this, i, snap] {
            if (i >= scores_.size()) return;
            scores_[i] = snap;
            Q_EMIT attentionReady(int(i), snap);
        });
    };
    cb.finished = [this](size_t i, const RunRecord& r) {
        calls_.post([this, i, r] { runEnded(i, r); });
    };
    cb.warning = [this](const std::string& m) {
        calls_.post([this, m] { Q_EMIT recordingWarning(QString::fromStdString(m)); });
    };
    return cb;
}

void ComparisonController::runEnded(size_t i, const RunRecord& r) {
    if (i >= set_.runs.size()) return;
    RunRecord& mine = set_.runs[i].record;
    mine.status = r.status;
    mine.error = r.error;
    mine.trading = r.trading;  // the summary's trading columns (the run store has them too)
    const RunEnd end = r.status == RunStatus::Completed ? RunEnd::Completed
                       : r.status == RunStatus::Stopped ? RunEnd::Stopped
                                                        : RunEnd::Failed;
    Q_EMIT runChanged(int(i));
    Q_EMIT runFinished(int(i), end, QString::fromStdString(r.error));
    for (const auto& run : set_.runs)
        if (!run.record.finished()) return;
    busy_ = false;
    Q_EMIT allFinished();
}

void ComparisonController::runAndServe(std::shared_ptr<ComparisonRunner> runner) {
    runner->run(callbacks());
    // The trained networks stay for the attention view's sample picker until the next start.
    for (;;) {
        int sample = 0;
        {
            std::unique_lock<std::mutex> lock(requestMutex_);
            requested_.wait(lock, [this] { return ending_ || !requests_.empty(); });
            if (ending_) return;
            sample = requests_.back();  // only the latest matters
            requests_.clear();
        }
        for (size_t i = 0; i < runner->records().size(); ++i)
            if (AttentionSnapshotPtr snap = runner->scoresOf(i, sample))
                calls_.post([this, i, snap] {
                    if (i >= scores_.size()) return;
                    scores_[i] = snap;
                    Q_EMIT attentionReady(int(i), snap);
                });
    }
}

void ComparisonController::endThread() {
    if (runner_) runner_->stopAll();
    {
        std::lock_guard<std::mutex> lock(requestMutex_);
        ending_ = true;
    }
    requested_.notify_all();
    if (thread_.joinable()) thread_.join();
    runner_.reset();
    ending_ = false;
    requests_.clear();
}

int ComparisonController::addRun(const Experiment& experiment, const QString& file,
                                 const QString& device) {
    if (isBusy()) return -1;
    const size_t i = set_.addRun(experiment, file.toStdString(), device.toStdString());
    scores_.emplace_back();
    Q_EMIT runsChanged();
    return static_cast<int>(i);
}

bool ComparisonController::removeRun(int run) {
    if (isBusy() || run < 0 || run >= runCount()) return false;
    scores_.erase(scores_.begin() + run);
    set_.runs.erase(set_.runs.begin() + run);
    Q_EMIT runsChanged();
    return true;
}

bool ComparisonController::setDevice(int run, const QString& device) {
    if (isBusy() || run < 0 || run >= runCount()) return false;
    set_.setDevice(size_t(run), device.toStdString());
    Q_EMIT runChanged(run);
    return true;
}

bool ComparisonController::setEpochs(int epochs) {
    if (isBusy() || epochs < 0) return false;
    set_.epochs = epochs;
    return true;
}

bool ComparisonController::start(QString* error) {
    if (isBusy() || set_.runs.empty()) return false;
    for (const ComparisonRun& run : set_.runs)
        if (const std::string why = comparisonEnsembleRefusal(run.experiment); !why.empty()) {
            const std::string& at =
                run.experimentFile.empty() ? run.record.label : run.experimentFile;
            if (error) *error = QString::fromStdString(at + ": " + why);
            return false;
        }
    endThread();  // the last comparison's networks go
    const std::vector<Experiment> experiments = set_.trainingExperiments();
    std::vector<std::string> labels, files;
    for (size_t i = 0; i < experiments.size(); ++i) {
        set_.runs[i].record.restart();
        scores_[i].reset();
        labels.push_back(set_.runs[i].record.label);
        files.push_back(set_.runs[i].experimentFile);
        Q_EMIT runChanged(static_cast<int>(i));
    }
    RecordingOptions o = recording_;
    o.source = "window-compare";
    o.comparison = utcNowText() + "-" + std::to_string(QCoreApplication::applicationPid()) + "-" +
                   std::to_string(++started_);
    runner_ = std::make_shared<ComparisonRunner>(experiments, labels);
    runner_->setRecording(o, files);
    runner_->setSentenceErrors(true);
    runner_->setKeepRuns(true);
    runner_->setScoreSample(scoreSample_);
    busy_ = true;
    thread_ = std::thread([this, runner = runner_] { runAndServe(runner); });
    return true;
}

void ComparisonController::stop(int run) {
    // Only while the runs go: a run added since belongs to no runner yet.
    if (runner_ && busy_ && run >= 0 && run < runCount()) runner_->stop(size_t(run));
}

void ComparisonController::stopAll() {
    if (runner_) runner_->stopAll();
}

void ComparisonController::requestScores(int sample) {
    scoreSample_ = sample;
    if (!runner_) return;
    runner_->setScoreSample(sample);
    if (busy_) return;  // the runs show it from their next epoch
    {
        std::lock_guard<std::mutex> lock(requestMutex_);
        requests_.push_back(sample);
    }
    requested_.notify_all();
}

bool ComparisonController::save(const QString& path, QString* error) {
    try {
        set_.save(path.toStdString());
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    filePath_ = path;
    return true;
}

bool ComparisonController::open(const QString& path, QString* error) {
    if (isBusy()) {
        if (error) *error = tr("Stop the running comparison first.");
        return false;
    }
    ComparisonSet loaded;
    try {
        loaded = ComparisonSet::load(path.toStdString());
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    endThread();
    set_ = std::move(loaded);
    scores_.assign(set_.runs.size(), nullptr);
    filePath_ = path;
    Q_EMIT runsChanged();
    return true;
}

void ComparisonController::shutdown() {
    endThread();
    if (busy_) {  // the runs' last reports are dropped with the thread
        busy_ = false;
    }
}

}  // namespace nnwb
