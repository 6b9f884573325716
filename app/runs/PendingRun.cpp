#include "app/runs/PendingRun.h"

#include "app/runs/HostClock.h"
#include "app/runs/RunStore.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace nnwb {

namespace {

// The host part of a pending file's name.
std::string pendingHost() {
    const std::string h = thisHostName();
    return h.empty() ? "host" : h;
}

nlohmann::json metricsJson(const EpochMetrics& m) {
    nlohmann::json c = nlohmann::json::array();
    for (const auto& row : m.confusion) c.push_back({row[0], row[1], row[2]});
    return {{"samples", m.samples},  {"loss", m.loss},           {"accuracy", m.accuracyPct},
            {"missed", m.missedPct}, {"signals", m.signalCount}, {"patterns", m.patterns},
            {"confusion", c}};
}

EpochMetrics metricsFrom(const nlohmann::json& j) {
    EpochMetrics m;
    m.samples = j.at("samples").get<size_t>();
    m.loss = j.at("loss").get<double>();
    m.accuracyPct = j.at("accuracy").get<double>();
    m.missedPct = j.at("missed").get<double>();
    m.signalCount = j.at("signals").get<size_t>();
    m.patterns = j.at("patterns").get<size_t>();
    const nlohmann::json& c = j.at("confusion");
    for (size_t r = 0; r < 3; ++r)
        for (size_t k = 0; k < 3; ++k) m.confusion[r][k] = c.at(r).at(k).get<int64_t>();
    return m;
}

nlohmann::json runJson(const StoredRun& r) {
    return {{"uuid", r.uuid},
            {"name", r.name},
            {"tags", r.tags},
            {"note", r.note},
            {"source", r.source},
            {"comparison", r.comparison},
            {"experiment", r.experiment},
            {"experiment_file", r.experimentFile},
            {"data_file", r.dataFile},
            {"data_size", r.dataSize},
            {"data_sha256", r.dataSha256},
            {"data_bars", r.dataBars},
            {"data_first_bar", r.dataFirstBar},
            {"data_last_bar", r.dataLastBar},
            {"data_description", r.dataDescription},
            {"device_id", r.deviceId},
            {"device_name", r.deviceName},
            {"seed", r.seed},
            {"app_version", r.appVersion},
            {"parameters", r.parameters},
            {"train_samples", r.trainSamples},
            {"validation_samples", r.validationSamples},
            {"epochs_planned", r.epochsPlanned},
            {"started_at", r.startedAt},
            {"host", r.host},
            {"pid", r.pid},
            {"monitor", r.monitor}};
}

StoredRun runFrom(const nlohmann::json& j) {
    StoredRun r;
    r.uuid = j.at("uuid").get<std::string>();
    r.name = j.at("name").get<std::string>();
    r.tags = j.at("tags").get<std::string>();
    r.note = j.at("note").get<std::string>();
    r.source = j.at("source").get<std::string>();
    r.comparison = j.at("comparison").get<std::string>();
    r.experiment = j.at("experiment");
    r.experimentFile = j.at("experiment_file").get<std::string>();
    r.dataFile = j.at("data_file").get<std::string>();
    r.dataSize = j.at("data_size").get<int64_t>();
    r.dataSha256 = j.at("data_sha256").get<std::string>();
    r.dataBars = j.at("data_bars").get<int64_t>();
    r.dataFirstBar = j.at("data_first_bar").get<std::string>();
    r.dataLastBar = j.at("data_last_bar").get<std::string>();
    r.dataDescription = j.at("data_description").get<std::string>();
    r.deviceId = j.at("device_id").get<std::string>();
    r.deviceName = j.at("device_name").get<std::string>();
    r.seed = j.at("seed").get<uint64_t>();
    r.appVersion = j.at("app_version").get<std::string>();
    r.parameters = j.at("parameters").get<int64_t>();
    r.trainSamples = j.at("train_samples").get<int64_t>();
    r.validationSamples = j.at("validation_samples").get<int64_t>();
    r.epochsPlanned = j.at("epochs_planned").get<int>();
    r.startedAt = j.at("started_at").get<std::string>();
    r.host = j.at("host").get<std::string>();
    r.pid = j.at("pid").get<int64_t>();
    r.monitor = j.at("monitor").get<std::string>();
    return r;
}

void writeAll(int fd, const std::string& s, const std::string& path) {
    size_t done = 0;
    while (done < s.size()) {
        const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
        done += size_t(n);
    }
    if (::fsync(fd) != 0)
        throw std::runtime_error("cannot sync " + path + ": " + std::strerror(errno));
}

void syncFolder(const fs::path& folder) {
    const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    ::fsync(fd);
    ::close(fd);
}

}  // namespace

std::string pendingRunsFolder(const std::string& dbPath) {
    const fs::path p(dbPath);
    const fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
    return (dir / (p.stem().string() + "-pending")).string();
}

PendingRunFile::PendingRunFile(const std::string& folder) {
    static std::atomic<int> counter{0};
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec) throw std::runtime_error("cannot create the folder " + folder + ": " + ec.message());
    const std::string stem = (fs::path(folder) / (pendingHost() + "-" + std::to_string(::getpid()) +
                                                  "-" + std::to_string(++counter)))
                                 .string();
    // Locked before it has the name an importer looks for.
    const std::string temp = stem + ".tmp";
    fd_ = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0) throw std::runtime_error("cannot create " + temp + ": " + std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0 ||
        std::rename(temp.c_str(), (stem + ".jsonl").c_str()) != 0) {
        const std::string why = std::strerror(errno);
        ::close(fd_);
        fd_ = -1;
        ::unlink(temp.c_str());
        throw std::runtime_error("cannot create " + stem + ".jsonl: " + why);
    }
    path_ = stem + ".jsonl";
    syncFolder(folder);
}

PendingRunFile::~PendingRunFile() {
    if (fd_ >= 0) ::close(fd_);
}

std::string PendingRunFile::filesFolder() const {
    return (fs::path(path_).parent_path() / fs::path(path_).stem()).string();
}

void PendingRunFile::append(const nlohmann::json& record) {
    writeAll(fd_, record.dump() + "\n", path_);
}

void PendingRunFile::appendRun(const StoredRun& run) {
    append({{"record", "run"}, {"run", runJson(run)}});
}

void PendingRunFile::appendEpoch(const StoredEpoch& e, std::optional<int> bestEpoch) {
    const EpochReport& r = e.report;
    nlohmann::json j = {{"record", "epoch"},
                        {"epoch", r.epoch},
                        {"seconds", r.seconds},
                        {"samples_per_second", r.samplesPerSecond},
                        {"task_metrics", r.taskMetrics},
                        {"train", metricsJson(r.train)},
                        {"validation", metricsJson(r.validation)}};
    j["learning_rate"] = e.learningRate ? nlohmann::json(*e.learningRate) : nlohmann::json();
    j["best_epoch"] = bestEpoch ? nlohmann::json(*bestEpoch) : nlohmann::json();
    append(j);
}

void PendingRunFile::appendBundle(const StoredBundle& b) {
    append({{"record", "bundle"},
            {"kind", b.kind},
            {"path", b.path},
            {"sha256", b.sha256},
            {"size", b.size},
            {"epoch", b.epoch}});
}

void PendingRunFile::appendTrading(const nlohmann::json& trading) {
    append({{"record", "trading"}, {"trading", trading}});
}

void PendingRunFile::appendEnd(const std::string& status, const std::string& error,
                               std::optional<int> bestEpoch) {
    nlohmann::json j = {
        {"record", "end"}, {"status", status}, {"error", error}, {"ended_at", utcNowText()}};
    j["best_epoch"] = bestEpoch ? nlohmann::json(*bestEpoch) : nlohmann::json();
    append(j);
}

std::optional<PendingRun> readPendingRun(const std::string& text, const std::string& path,
                                         std::string& problem) {
    PendingRun out;
    bool haveRun = false;
    std::istringstream in(text);
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        const bool last = in.peek() == EOF;
        if (line.empty()) continue;
        try {
            const nlohmann::json j = nlohmann::json::parse(line);
            const std::string kind = j.at("record").get<std::string>();
            if (kind == "run") {
                out.run = runFrom(j.at("run"));
                haveRun = true;
            } else if (kind == "epoch") {
                StoredEpoch e;
                e.report.epoch = j.at("epoch").get<int>();
                e.report.seconds = j.at("seconds").get<double>();
                e.report.samplesPerSecond = j.at("samples_per_second").get<double>();
                e.report.taskMetrics = j.at("task_metrics").get<bool>();
                e.report.train = metricsFrom(j.at("train"));
                e.report.validation = metricsFrom(j.at("validation"));
                if (!j.at("learning_rate").is_null())
                    e.learningRate = j.at("learning_rate").get<double>();
                e.report.learningRate = e.learningRate.value_or(0.0);
                if (!j.at("best_epoch").is_null())
                    out.run.bestEpoch = j.at("best_epoch").get<int>();
                out.epochs.push_back(e);
            } else if (kind == "bundle") {
                StoredBundle b;
                b.kind = j.at("kind").get<std::string>();
                b.path = j.at("path").get<std::string>();
                b.sha256 = j.at("sha256").get<std::string>();
                b.size = j.at("size").get<uint64_t>();
                b.epoch = j.at("epoch").get<int>();
                out.bundles.push_back(b);
            } else if (kind == "trading") {
                out.run.trading = j.at("trading");
            } else if (kind == "end") {
                out.ended = true;
                out.run.status = j.at("status").get<std::string>();
                out.run.error = j.at("error").get<std::string>();
                out.endedAt = j.at("ended_at").get<std::string>();
                if (!j.at("best_epoch").is_null())
                    out.run.bestEpoch = j.at("best_epoch").get<int>();
            } else {
                throw std::runtime_error("unknown record \"" + kind + "\"");
            }
        } catch (const std::exception& e) {
            if (last && text.back() != '\n') break;  // torn by a crash while it was appended
            problem = path + " line " + std::to_string(number) + ": " + e.what();
            return std::nullopt;
        }
    }
    if (!haveRun) {
        problem = path + ": no run record";
        return std::nullopt;
    }
    return out;
}

}  // namespace nnwb
