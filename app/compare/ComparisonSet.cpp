#include "app/compare/ComparisonSet.h"

#include <filesystem>

#include "model/AtomicFile.h"
#include "model/data/DataConfig.h"

namespace nnwb {

namespace fs = std::filesystem;

namespace {

std::string baseName(const std::string& path) {
    return fs::path(path).stem().string();
}

bool labelTaken(const std::vector<ComparisonRun>& runs, const std::string& label) {
    for (const ComparisonRun& r : runs)
        if (r.record.label == label) return true;
    return false;
}

std::string absoluteFolder(const std::string& dir) {
    std::error_code ec;
    const fs::path p = fs::absolute(dir.empty() ? fs::path(".") : fs::path(dir), ec);
    return (ec ? fs::path(dir) : p).lexically_normal().string();
}

}  // namespace

size_t ComparisonSet::addRun(const Experiment& experiment, const std::string& file,
                             const std::string& device) {
    ComparisonRun run;
    run.experimentFile =
        file.empty() ? std::string() : fs::absolute(file).lexically_normal().string();
    run.experiment = experiment;
    if (!device.empty()) run.experiment.training.device = device;
    const std::string base = file.empty() ? experiment.name : baseName(file);
    std::string label = base;
    for (int i = 2; labelTaken(runs, label); ++i) label = base + " #" + std::to_string(i);
    run.record.label = label;
    run.record.deviceId = run.experiment.training.device;
    runs.push_back(std::move(run));
    return runs.size() - 1;
}

void ComparisonSet::setDevice(size_t run, const std::string& device) {
    runs.at(run).experiment.training.device = device;
    runs.at(run).record.deviceId = device;
}

nlohmann::json resolvedDataSection(const Experiment& experiment) {
    nlohmann::json data = experiment.data;
    if (data.value("source", std::string("file")) == "file" && data.contains("file") &&
        data["file"].is_string()) {
        DataConfig cfg;
        cfg.file = data["file"].get<std::string>();
        data["file"] = cfg.resolvedFile(absoluteFolder(experiment.baseDir));
    }
    return data;
}

std::string comparisonEnsembleRefusal(const Experiment& experiment) {
    const int n = experiment.training.ensemble;
    if (n <= 1) return {};
    return "training.ensemble " + std::to_string(n) +
           ": a comparison trains one model per experiment, not an ensemble; train the "
           "ensemble with nnwb-cli train --experiment FILE --save-model E.safetensors (it prints "
           "the ensemble against its best and median member) or the window's Training pane, or "
           "walk it forward with nnwb-cli walkforward or the Walk-Forward tab, or set "
           "training.ensemble to 1 to compare single models";
}

std::vector<Experiment> ComparisonSet::trainingExperiments() const {
    std::vector<Experiment> out;
    if (runs.empty()) return out;
    const nlohmann::json data = resolvedDataSection(runs.front().experiment);
    for (const ComparisonRun& run : runs) {
        Experiment e = run.experiment;
        e.data = data;
        if (epochs > 0) e.training.epochs = epochs;
        out.push_back(std::move(e));
    }
    return out;
}

std::vector<RunRecord> ComparisonSet::records() const {
    std::vector<RunRecord> out;
    for (const ComparisonRun& run : runs) out.push_back(run.record);
    return out;
}

nlohmann::json ComparisonSet::toJson(const std::string& dir) const {
    nlohmann::json list = nlohmann::json::array();
    const fs::path base = absoluteFolder(dir);
    for (const ComparisonRun& run : runs) {
        nlohmann::json j{{"label", run.record.label}, {"device", run.experiment.training.device}};
        if (run.experimentFile.empty()) {
            j["experiment"] = run.experiment.toJson();
        } else {
            const fs::path rel = fs::path(run.experimentFile).lexically_relative(base);
            j["experiment"] = rel.empty() ? run.experimentFile : rel.generic_string();
        }
        j["history"] = run.record.historyToJson();
        list.push_back(std::move(j));
    }
    return {{"format", kFormat},
            {"formatVersion", kFormatVersion},
            {"name", name},
            {"epochs", epochs},
            {"runs", list}};
}

ComparisonSet ComparisonSet::fromJson(const nlohmann::json& j, const std::string& dir) {
    if (!j.is_object()) throw ComparisonError("not a JSON object");
    if (j.value("format", std::string()) != kFormat)
        throw ComparisonError(std::string("format: expected \"") + kFormat + "\"");
    if (!j.contains("formatVersion") || !j["formatVersion"].is_number_integer())
        throw ComparisonError("formatVersion: missing");
    const int version = j["formatVersion"].get<int>();
    if (version < 1 || version > kFormatVersion)
        throw ComparisonError("formatVersion: " + std::to_string(version) +
                              " is not supported (this build reads 1.." +
                              std::to_string(kFormatVersion) + ")");
    ComparisonSet set;
    try {
        set.name = j.value("name", set.name);
        set.epochs = j.value("epochs", 0);
    } catch (const nlohmann::json::exception&) {
        throw ComparisonError("name/epochs: wrong type");
    }
    if (set.epochs < 0) throw ComparisonError("epochs: must not be negative");
    if (!j.contains("runs") || !j["runs"].is_array()) throw ComparisonError("runs: missing");
    const std::string folder = absoluteFolder(dir);
    const nlohmann::json& runs = j["runs"];
    for (size_t i = 0; i < runs.size(); ++i) {
        const std::string where = "runs[" + std::to_string(i) + "]";
        const nlohmann::json& r = runs[i];
        if (!r.is_object() || !r.contains("experiment"))
            throw ComparisonError(where + ".experiment: missing");
        const nlohmann::json& ref = r["experiment"];
        Experiment e;
        std::string file;
        try {
            if (ref.is_string()) {
                file = ref.get<std::string>();
                if (fs::path(file).is_relative()) file = (fs::path(folder) / file).string();
                e = Experiment::load(file);
            } else {
                e = Experiment::fromJson(ref, folder);
            }
        } catch (const std::exception& ex) {
            throw ComparisonError(where + ".experiment: " + ex.what());
        }
        std::string device;
        if (r.contains("device")) {
            if (!r["device"].is_string()) throw ComparisonError(where + ".device: not a string");
            device = r["device"].get<std::string>();
        }
        const size_t k = set.addRun(e, file, device);
        RunRecord& rec = set.runs[k].record;
        if (r.contains("label") && r["label"].is_string()) {
            const std::string label = r["label"].get<std::string>();
            if (!label.empty() && !labelTaken(set.runs, label)) rec.label = label;
        }
        if (r.contains("history")) {
            try {
                rec.historyFromJson(r["history"]);
            } catch (const std::invalid_argument& ex) {
                throw ComparisonError(where + "." + ex.what());
            }
        }
    }
    return set;
}

ComparisonSet ComparisonSet::load(const std::string& path) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(readFile(path));
    } catch (const nlohmann::json::parse_error& e) {
        throw ComparisonError(path + ": not valid JSON (" + e.what() + ")");
    } catch (const std::exception& e) {
        throw ComparisonError(e.what());
    }
    try {
        return fromJson(j, fs::path(path).parent_path().string());
    } catch (const ComparisonError& e) {
        throw ComparisonError(path + ": " + e.what());
    }
}

void ComparisonSet::save(const std::string& path) const {
    const nlohmann::json j = toJson(fs::path(path).parent_path().string());
    try {
        writeFileAtomic(path, j.dump(2) + "\n");
    } catch (const std::exception& e) {
        throw ComparisonError(e.what());
    }
}

}  // namespace nnwb
