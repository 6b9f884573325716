#include "app/runs/RunRecorder.h"

#include <filesystem>

#include "app/runs/RunsDbPath.h"
#include "app/runs/Sha256.h"
#include "model/ModelBundle.h"
#include "model/data/DateTime.h"

namespace fs = std::filesystem;

namespace nnwb {

namespace {
constexpr auto kHeartbeatEvery = std::chrono::seconds(5);
}

const char* nnwbVersion() {
    return appVersion();
}

RunRecorder::RunRecorder(RecordingOptions options, Warn warn)
    : options_(std::move(options)), warn_(std::move(warn)) {
    path_ = runsDbPath(options_.dbPath);
}

RunRecorder::~RunRecorder() {
    if (recording() && !finished_) finish(runstatus::kStopped);
}

void RunRecorder::disable(const std::exception& e) {
    store_.reset();  // never again
    disabled_ = true;
    if (!warned_ && warn_)
        warned_ = true,
        warn_(std::string(e.what()) + "; this run is not recorded, training goes on");
}

void RunRecorder::begin(const Experiment& experiment, const ExperimentData& data,
                        const DeviceInfo& device, size_t parameters, int epochsPlanned,
                        const std::string& monitor) {
    if (!options_.enabled || id_ != 0 || disabled_) return;
    experiment_ = experiment;
    data_ = &data;
    try {
        store_ = std::make_unique<RunStore>(path_);
        StoredRun r;
        r.name = options_.name.empty() ? experiment.name : options_.name;
        r.tags = options_.tags;
        r.note = options_.note;
        r.source = options_.source;
        r.comparison = options_.comparison;
        r.experiment = experiment.toJson();
        if (!options_.experimentFile.empty())
            r.experimentFile = fs::absolute(options_.experimentFile).lexically_normal().string();
        if (data.priceData) {
            const std::string file = data.dataConfig.resolvedFile(experiment.baseDir);
            r.dataFile = fs::absolute(file).lexically_normal().string();
            uint64_t size = 0;
            r.dataSha256 = sha256File(file, &size);
            r.dataSize = int64_t(size);
            if (data.bars && !data.bars->empty()) {
                r.dataBars = int64_t(data.bars->size());
                r.dataFirstBar = formatBarTime(data.bars->time.front());
                r.dataLastBar = formatBarTime(data.bars->time.back());
            }
        }
        r.dataDescription = data.description;
        // The data file as an absolute path, so the stored experiment opens from anywhere.
        if (!r.dataFile.empty() && r.experiment.contains("data") &&
            r.experiment["data"].is_object() && r.experiment["data"].contains("file"))
            r.experiment["data"]["file"] = r.dataFile;
        r.deviceId = device.id;
        r.deviceName = device.id == "cpu" ? "CPU (native)" : device.name;
        r.seed = experiment.training.seed;
        r.appVersion = nnwbVersion();
        r.parameters = int64_t(parameters);
        r.trainSamples = int64_t(data.split.train.size());
        r.validationSamples = int64_t(data.split.validation.size());
        r.epochsPlanned = epochsPlanned;
        hasValidation_ = r.validationSamples > 0;
        r.monitor = !monitor.empty() ? monitor
                    : hasValidation_ ? "validation loss"
                                     : "training loss";
        id_ = store_->insertRun(r);
        lastBeat_ = std::chrono::steady_clock::now();
    } catch (const std::exception& e) {
        disable(e);
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
    if (!recording()) return;
    try {
        store_->addEpoch(id_, StoredEpoch{report, report.learningRate}, bestEpoch_);
        lastBeat_ = std::chrono::steady_clock::now();
    } catch (const std::exception& e) {
        disable(e);
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
        disable(e);
    }
}

void RunRecorder::bundle(const std::string& kind, const WeightsSnapshot& weights,
                         const nlohmann::json& model) {
    if (!recording() || weights.empty()) return;
    try {
        const fs::path folder = store_->runFolder(id_);
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
        store_->setBundle(id_, b);
    } catch (const std::exception& e) {
        disable(e);
    }
}

void RunRecorder::finish(const std::string& status, const std::string& error) {
    if (!recording() || finished_) return;
    finished_ = true;
    try {
        store_->finishRun(id_, status, error, bestEpoch_);
    } catch (const std::exception& e) {
        disable(e);
    }
}

}  // namespace nnwb
