#include "app/core/Presets.h"

#include <fstream>
#include <sstream>

#include <QDir>
#include <QFileInfo>

#include "model/ResourceDirs.h"

namespace nnwb {

namespace {
bool readJson(const QString& path, nlohmann::json* out, QString* error) {
    std::ifstream in(path.toStdString(), std::ios::binary);
    if (!in) {
        if (error) *error = QStringLiteral("%1: cannot be read").arg(path);
        return false;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    try {
        *out = nlohmann::json::parse(ss.str());
    } catch (const std::exception& e) {
        if (error) *error = QStringLiteral("%1: not valid JSON (%2)").arg(path, e.what());
        return false;
    }
    return true;
}
}  // namespace

QStringList resourceDirs() {
    QStringList out;
    for (const std::string& dir : resourceSearchDirs()) out << QString::fromStdString(dir);
    return out;
}

QVector<PresetInfo> listPresets() {
    QVector<PresetInfo> out;
    QStringList seen;
    for (const QString& dir : resourceDirs()) {
        const QDir d(dir + QStringLiteral("/presets"));
        for (const QFileInfo& f :
             d.entryInfoList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
            if (seen.contains(f.fileName())) continue;
            seen << f.fileName();
            PresetInfo p;
            p.path = f.absoluteFilePath();
            p.id = f.completeBaseName();
            p.name = p.id;
            nlohmann::json j;
            if (readJson(p.path, &j, nullptr) && j.is_object()) {
                if (j.contains("name") && j["name"].is_string())
                    p.name = QString::fromStdString(j["name"].get<std::string>());
                if (j.contains("description") && j["description"].is_string())
                    p.description = QString::fromStdString(j["description"].get<std::string>());
            }
            out.push_back(p);
        }
    }
    return out;
}

QString presetPath(const QString& id) {
    for (const PresetInfo& p : listPresets())
        if (p.id == id) return p.path;
    return {};
}

bool loadPreset(const QString& path, Experiment* preset, QString* error) {
    try {
        *preset = Experiment::load(path.toStdString());
        return true;
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
}

Experiment builtinExperiment() {
    Experiment e;
    e.name = "synthetic starter";
    e.data = {{"source", "synthetic"},
              {"samples", 2048},
              {"units", 8},
              {"window", 6},
              {"validationShare", 0.2}};
    nlohmann::json layers = nlohmann::json::array();
    layers.push_back(
        {{"type", "conv"}, {"window", 6}, {"step", 6}, {"filters", 16}, {"activation", "tanh"}});
    layers.push_back({{"type", "dense"}, {"neurons", 32}, {"activation", "swish"}});
    layers.push_back({{"type", "dense"}, {"neurons", 3}, {"activation", "softmax"}});
    e.model = {{"layers", layers}};
    e.training.optimizer.learningRate = 3e-3;
    e.training.batchSize = 32;
    e.training.epochs = 20;
    return e;
}

Experiment defaultExperiment(QString* sourcePath) {
    for (const QString& dir : resourceDirs()) {
        const QString path = dir + QStringLiteral("/experiments/default.json");
        if (!QFileInfo::exists(path)) continue;
        try {
            Experiment e = Experiment::load(path.toStdString());
            if (sourcePath) *sourcePath = path;
            return e;
        } catch (const std::exception&) {
            // fall through to the next candidate
        }
    }
    if (sourcePath) sourcePath->clear();
    return builtinExperiment();
}

}  // namespace nnwb
