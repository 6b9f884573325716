#include "app/runs/RunRecorder.h"

#include <unistd.h>

#include <filesystem>
#include <random>

#include "app/runs/HostClock.h"
#include "app/runs/RunsDbPath.h"
#include "app/runs/Sha256.h"
#include "model/ModelBundle.h"
#include "model/data/DateTime.h"

namespace fs = std::filesystem;

namespace nnwb {

namespace {
constexpr auto kHeartbeatEvery = std::chrono::seconds(5);
}  // namespace

std::string newRunUuid() {
    std::random_device rd;
    std::string out;
    static const char* hex = "0123456789abcdef";
    for (int i = 0; i < 8; ++i) {
        uint32_t v = rd();
        for (int k = 0; k < 4; ++k, v >>= 8) {
            out += hex[(v >> 4) & 15];
            out += hex[v & 15];
        }
    }
    return out;
}

const char* nnwbVersion() {
    return appVersion();
}

RunRecorder::RunRecorder(RecordingOptions options, Warn warn)
    : options_(std::move(options)), warn_(std::move(warn)) {
    path_ = runsDbPath(options_.dbPath);
}

RunRecorder::~RunRecorder() {
    if (started_ && !finished_ && (store_ || pending_ || heldInMemory_))
        finish(runstatus::kStopped);
}

std::string RunRecorder::sideFile() const {
    return pending_ ? pending_->path() : std::string();
}

void RunRecorder::warnOnce(const std::string& message) {
    if (!warned_ && warn_) warned_ = true, warn_(message);
}

void RunRecorder::writeAside() {
    try {
        pending_ = std::make_unique<PendingRunFile>(pendingRunsFolder(path_));
        pending_->appendRun(row_);
        for (const StoredEpoch& se : epochs_) pending_->appendEpoch(se, bestEpoch_);
        for (const StoredBundle& b : bundles_) pending_->appendBundle(b);
        if (!trading_.is_null()) pending_->appendTrading(trading_);
        if (finished_) pending_->appendEnd(status_, error_, bestEpoch_);
        heldInMemory_ = false;
    } catch (const std::exception&) {
        dropSideFile();
        throw;
    }
}

void RunRecorder::dropSideFile() {
    if (!pending_) return;
    const std::string file = pending_->path();
    pending_.reset();
    ::unlink(file.c_str());  // a part of the run (or nothing): it is written whole again later
    heldInMemory_ = true;
}

void RunRecorder::keepAside(const std::exception& e) {
    store_.reset();  // never again for this run
    disabled_ = true;
    try {
        writeAside();
        warnOnce(std::string(e.what()) + "; this run is kept in " + pending_->path() +
                 " and added to the store when it can be written; training goes on");
    } catch (const std::exception& side) {
        heldInMemory_ = true;
        warnOnce(std::string(e.what()) + "; nor can the run be kept aside (" + side.what() +
                 "): it is held in memory and written aside again when it ends; training goes "
                 "on");
    }
}

template <typename F>
void RunRecorder::toSideFile(F&& write) {
    if (!pending_) return;
    try {
        write(*pending_);
    } catch (const std::exception& e) {
        const std::string file = pending_->path();
        dropSideFile();
        warned_ = false;  // the first warning said the run was kept: it is only in memory now
        warnOnce("runs database " + path_ + ": the side file " + file +
                 " cannot be written either (" + e.what() +
                 "); the run is held in memory and written aside again when it ends, training "
                 "goes on");
    }
}

void RunRecorder::retryAside() {
    try {
        writeAside();
        warned_ = false;
        std::string without;
        for (const std::string& m : lostModels_) without += (without.empty() ? "" : ", ") + m;
        warnOnce("runs database " + path_ + ": the run is now kept in " + pending_->path() +
                 (without.empty() ? std::string(" whole")
                                  : " without " + without + " (no room to write it)") +
                 " and added to the store when it can be written");
    } catch (const std::exception& e) {
        std::string lost = std::to_string(epochs_.size()) + " epoch(s)";
        if (storedEpochs_ > 0)
            lost += " (the store has the first " + std::to_string(storedEpochs_) +
                    "; it will show the run as interrupted)";
        lost += ", its end (" + status_ + ")";
        if (!trading_.is_null()) lost += ", its trading figures";
        for (const std::string& m : lostModels_) lost += ", " + m;
        warned_ = false;
        warnOnce("runs database " + path_ + ": run " + row_.uuid + " (" + row_.name +
                 ") could not be recorded nor kept aside at its end either (" + e.what() +
                 "); lost: " + lost);
    }
}

StoredRun recordedRunRow(const RecordingOptions& options, const Experiment& experiment,
                         const ExperimentData& data, const DeviceInfo& device, size_t parameters,
                         int epochsPlanned, const std::string& monitor, FileHasher hashFile) {
    StoredRun r;
    r.name = options.name.empty() ? experiment.name : options.name;
    r.tags = options.tags;
    r.note = options.note;
    r.source = options.source;
    r.comparison = options.comparison;
    r.experiment = experiment.toJson();
    if (!options.experimentFile.empty())
        r.experimentFile = fs::absolute(options.experimentFile).lexically_normal().string();
    if (data.priceData) {
        const std::string file = data.dataConfig.resolvedFile(experiment.baseDir);
        r.dataFile = fs::absolute(file).lexically_normal().string();
        uint64_t size = 0;
        r.dataSha256 = hashFile ? hashFile(file, &size) : sha256File(file, &size);
        r.dataSize = int64_t(size);
        if (data.bars && !data.bars->empty()) {
            r.dataBars = int64_t(data.bars->size());
            r.dataFirstBar = formatBarTime(data.bars->time.front());
            r.dataLastBar = formatBarTime(data.bars->time.back());
        }
    }
    r.dataDescription = data.description;
    // The data file as an absolute path, so the stored experiment opens from anywhere.
    if (!r.dataFile.empty() && r.experiment.contains("data") && r.experiment["data"].is_object() &&
        r.experiment["data"].contains("file"))
        r.experiment["data"]["file"] = r.dataFile;
    r.deviceId = device.id;
    r.deviceName = device.id == "cpu" ? "CPU (native)" : device.name;
    r.seed = experiment.training.seed;
    r.appVersion = nnwbVersion();
    r.parameters = int64_t(parameters);
    r.trainSamples = int64_t(data.split.train.size());
    r.validationSamples = int64_t(data.split.validation.size());
    r.epochsPlanned = epochsPlanned;
    r.monitor = !monitor.empty()          ? monitor
                : r.validationSamples > 0 ? "validation loss"
                                          : "training loss";
    return r;
}

void RunRecorder::begin(const Experiment& experiment, const ExperimentData& data,
                        const DeviceInfo& device, size_t parameters, int epochsPlanned,
                        const std::string& monitor) {
    if (!options_.enabled || started_) return;
    started_ = true;
    experiment_ = experiment;
    data_ = &data;
    StoredRun& r = row_;
    r.uuid = newRunUuid();  // first: a side file always names its run
    r.host = thisHostName();
    r.pid = int64_t(::getpid());
    r.startedAt = utcNowText();
    try {
        StoredRun built =
            recordedRunRow(options_, experiment, data, device, parameters, epochsPlanned, monitor);
        built.uuid = r.uuid;
        built.host = r.host;
        built.pid = r.pid;
        built.startedAt = r.startedAt;
        r = std::move(built);
        hasValidation_ = r.validationSamples > 0;
        store_ = std::make_unique<RunStore>(path_);
        id_ = store_->insertRun(r);
        lastBeat_ = std::chrono::steady_clock::now();
    } catch (const std::exception& e) {
        keepAside(e);
    }
}

void RunRecorder::epoch(const EpochReport& report) {
    if (report.bestEpoch > 0) {  // EpochKeeper's monitored metric
        lastIsBest_ = report.isBest;
        bestEpoch_ = report.bestEpoch;
    } else {
        const double value = hasValidation_ ? report.validation.loss : report.train.loss;
        lastIsBest_ = !bestEpoch_ || value < bestValue_;
        if (lastIsBest_) bestEpoch_ = report.epoch, bestValue_ = value;
    }
    if (!started_ || finished_) return;
    StoredEpoch se{report, report.learningRate};
    se.report.validationOutputs.reset();  // not stored; kept, it would pin every epoch's outputs
    epochs_.push_back(se);
    if (recording()) {
        try {
            store_->addEpoch(id_, se, bestEpoch_);
            ++storedEpochs_;
            lastBeat_ = std::chrono::steady_clock::now();
        } catch (const std::exception& e) {
            keepAside(e);
        }
    } else {
        toSideFile([&](PendingRunFile& f) { f.appendEpoch(se, bestEpoch_); });
    }
}

void RunRecorder::heartbeat() {
    if (!recording()) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - lastBeat_ < kHeartbeatEvery) return;
    lastBeat_ = now;
    try {
        store_->heartbeat(id_);
    } catch (const std::exception& e) {
        keepAside(e);
    }
}

void RunRecorder::bundle(const std::string& kind, const WeightsSnapshot& weights,
                         const nlohmann::json& model) {
    if (!started_ || finished_ || (!recording() && !pending_ && !heldInMemory_) || weights.empty())
        return;
    if (heldInMemory_) {  // no room for model files: the side file written at the end says so
        lostModels_.push_back("the " + kind + " model (epoch " + std::to_string(weights.epoch()) +
                              ")");
        return;
    }
    try {
        // A run the store has no id for keeps its files beside its side file.
        const fs::path folder = id_ > 0 ? fs::path(RunStore::runFolderOf(path_, id_))
                                        : fs::path(pending_->filesFolder());
        std::error_code ec;
        fs::create_directories(folder, ec);
        if (ec)
            throw RunStoreError("runs database " + path_ + ": cannot create " + folder.string() +
                                ": " + ec.message());
        StoredBundle b;
        b.kind = kind;
        b.path = (folder / (kind + ".safetensors")).string();
        b.epoch = weights.epoch();
        if (data_ && data_->priceData)
            makeModelBundle(experiment_, *data_, weights.tensors(), model, weights.epoch())
                .save(b.path);
        else
            weights.save(b.path);
        b.sha256 = sha256File(b.path, &b.size);
        bundles_.push_back(b);
        if (recording())
            store_->setBundle(id_, b);
        else
            toSideFile([&](PendingRunFile& f) { f.appendBundle(b); });
    } catch (const std::exception& e) {
        if (recording()) {
            keepAside(e);
        } else {
            lostModels_.push_back("the " + kind + " model (epoch " +
                                  std::to_string(weights.epoch()) + ")");
            toSideFile([&](PendingRunFile&) { throw; });
        }
    }
}

void RunRecorder::trading(const nlohmann::json& figures) {
    if (!active() || figures.is_null()) return;
    trading_ = figures;
    if (recording()) {
        try {
            store_->setTrading(id_, figures);
        } catch (const std::exception& e) {
            keepAside(e);
        }
    } else {
        toSideFile([&](PendingRunFile& f) { f.appendTrading(figures); });
    }
}

void RunRecorder::finish(const std::string& status, const std::string& error) {
    if (!started_ || finished_) return;
    finished_ = true;
    status_ = status;
    error_ = error;
    if (recording()) {
        try {
            store_->finishRun(id_, status, error, bestEpoch_);
        } catch (const std::exception& e) {
            keepAside(e);
        }
    } else {
        toSideFile([&](PendingRunFile& f) { f.appendEnd(status, error, bestEpoch_); });
    }
    if (heldInMemory_) retryAside();  // the disk may have room again
    if (pending_) {
        // The run is whole in its side file: unlocked, it can be imported, and opening the
        // store tries that now (if the store still fails, the next open that can write will).
        pending_.reset();
        try {
            RunStore store(path_);
        } catch (const std::exception&) {
        }
    }
}

}  // namespace nnwb
