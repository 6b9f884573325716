#include "app/sweep/TaskResultChecks.h"

#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>

#include "compute/BackendRegistry.h"
#include "model/AtomicFile.h"
#include "model/ExperimentData.h"
#include "model/JsonRead.h"
#include "model/ModelBundle.h"
#include "model/Network.h"
#include "model/NetworkWeights.h"
#include "model/Safetensors.h"

namespace fs = std::filesystem;

namespace nnwb {

namespace {

[[noreturn]] void refuse(const std::string& where, const std::string& why) {
    throw std::runtime_error(where + ": " + why);
}

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

void checkRange(double v, double lo, double hi, const std::string& where, const char* key) {
    if (!std::isfinite(v) || v < lo || v > hi)
        refuse(where, std::string(key) + " " + number(v) + " is not possible (a finite number " +
                          (std::isinf(hi) ? ">= " + number(lo)
                                          : "from " + number(lo) + " to " + number(hi)) +
                          ")");
}

void checkMetrics(const EpochMetrics& m, const std::string& where, const std::string& part) {
    checkRange(m.loss, 0, INFINITY, where, (part + ".loss").c_str());
    checkRange(m.accuracyPct, 0, 100, where, (part + ".accuracy").c_str());
    checkRange(m.missedPct, 0, 100, where, (part + ".missed").c_str());
}

}  // namespace

bool resultEntryExists(const std::string& path) {
    std::error_code ec;
    return fs::symlink_status(path, ec).type() != fs::file_type::not_found && !ec;
}

void checkResultFolder(const std::string& path) {
    std::error_code ec;
    const auto type = fs::symlink_status(path, ec).type();
    if (type == fs::file_type::symlink)
        refuse(path, "is a symbolic link (a task's results must be in the bundle itself)");
    if (type != fs::file_type::directory) refuse(path, "is not a folder");
}

std::string readResultFile(const std::string& path, size_t maxBytes) {
    std::error_code ec;
    if (fs::symlink_status(path, ec).type() == fs::file_type::symlink)
        refuse(path, "is a symbolic link (a task's results must be in the bundle itself)");
    return readFile(path, maxBytes);  // "cannot read PATH: not a regular file ..." / too large
}

void checkEpochReport(const EpochReport& r, int previousEpoch, int maxEpochs,
                      const std::string& where) {
    if (r.epoch != previousEpoch + 1)
        refuse(where, "epoch " + std::to_string(r.epoch) +
                          (previousEpoch ? " after epoch " + std::to_string(previousEpoch)
                                         : std::string(" first")) +
                          " (epochs are numbered 1, 2, 3...)");
    if (r.epoch > maxEpochs)
        refuse(where, "epoch " + std::to_string(r.epoch) + " is past the trial's " +
                          std::to_string(maxEpochs) + " epochs");
    checkMetrics(r.train, where, "train");
    checkMetrics(r.validation, where, "validation");
    checkRange(r.seconds, 0, INFINITY, where, "seconds");
    checkRange(r.samplesPerSecond, 0, INFINITY, where, "samplesPerSecond");
    checkRange(r.learningRate, 0, INFINITY, where, "learningRate");
    checkRange(r.gradNormMax, 0, INFINITY, where, "gradNorm.max");
    checkRange(r.gradNormMean, 0, INFINITY, where, "gradNorm.mean");
    if (r.bestEpoch < 0 || r.bestEpoch > r.epoch)
        refuse(where, "bestEpoch " + std::to_string(r.bestEpoch) + " is not from 0 to epoch " +
                          std::to_string(r.epoch));
}

int restartCountOf(const nlohmann::json& slurm, const std::string& file) {
    const auto it = slurm.find("restartCount");
    if (it == slurm.end()) return 0;
    const std::string s = it->is_string() ? it->get<std::string>() : jsonExcerpt(*it);
    if (s.empty()) return 0;
    const bool digits =
        it->is_string() && s.size() <= 7 && s.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || std::stoi(s) > 1000000)
        refuse(file, "slurm.restartCount '" + s.substr(0, 40) +
                         "' is not a restart count (an integer from 0 to 1000000 in a string)");
    return std::stoi(s);
}

void checkTrialModel(const std::string& path, const Experiment& trial, bool bundle) {
    auto backend = createBackend("cpu");  // declared first: the network's buffers go before it
    std::unique_ptr<Network> net;
    try {
        net = std::make_unique<Network>(Network::layersFromJson(trial.model),
                                        experimentInputShape(trial));
    } catch (const std::exception& e) {
        refuse(path, std::string("the trial's model cannot be built: ") + e.what());
    }
    const size_t limit = net->parameterCount() * sizeof(float) + kMaxModelHeaderBytes;
    const std::string bytes = readResultFile(path, limit);
    std::map<std::string, std::string> meta;
    TensorMap tensors;
    try {
        tensors = decodeSafetensors(bytes, &meta);
        checkFiniteTensors(tensors);
        if (bundle) ModelBundle::fromMetadata(tensors, meta);  // the keys predict needs
    } catch (const std::exception& e) {
        refuse(path, e.what());
    }
    const nlohmann::json model = parseJson(
        meta.count("model") ? meta.at("model") : std::string("null"), path + " __metadata__.model");
    if (model != net->toJson())
        refuse(path,
               "its __metadata__.model is not the trial's model (" + jsonExcerpt(model) + ")");
    net->build(*backend, 1);
    try {
        writeWeights(*net, tensors);  // names the first missing, extra or mis-shaped tensor
    } catch (const std::invalid_argument& e) {
        refuse(path, std::string(e.what()) + " (not the trial's architecture)");
    }
}

}  // namespace nnwb
