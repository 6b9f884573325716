#include "app/core/ExperimentDocument.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>

#include "app/core/ModelEditCommand.h"

namespace nnwb {

ExperimentDocument::ExperimentDocument(QObject* parent) : QObject(parent) {
    connect(&undo_, &QUndoStack::cleanChanged, this, [this] { emitModified(); });
}

QString ExperimentDocument::displayName() const {
    if (filePath_.isEmpty()) return tr("untitled");
    return QFileInfo(filePath_).fileName();
}

void ExperimentDocument::reset(const Experiment& experiment, const QString& path) {
    experiment_ = experiment;
    if (!experiment_.model.is_object()) experiment_.model = nlohmann::json::object();
    if (!experiment_.model.contains("layers") || !experiment_.model["layers"].is_array())
        experiment_.model["layers"] = nlohmann::json::array();
    filePath_ = path;
    undo_.clear();
    undo_.setClean();
    dirty_ = false;
    Q_EMIT filePathChanged(filePath_);
    Q_EMIT replaced();
    emitModified();
}

bool ExperimentDocument::open(const QString& path, QString* error) {
    try {
        Experiment e = Experiment::load(path.toStdString());
        reset(e, QFileInfo(path).absoluteFilePath());
        addRecentFile(filePath_);
        return true;
    } catch (const std::exception& ex) {
        if (error) *error = QString::fromStdString(ex.what());
        return false;
    }
}

bool ExperimentDocument::save(const QString& path, QString* error) {
    const QString target = path.isEmpty() ? filePath_ : path;
    if (target.isEmpty()) {
        if (error) *error = tr("No file name given.");
        return false;
    }
    const QString newDir = QFileInfo(QFileInfo(target).absoluteFilePath()).absolutePath();
    Experiment copy = experiment_;
    // A relative price-file path stays valid from the new folder.
    if (copy.data.contains("file") && copy.data["file"].is_string()) {
        const QString file = QString::fromStdString(copy.data["file"].get<std::string>());
        if (QFileInfo(file).isRelative()) {
            const QString abs = QDir(QString::fromStdString(copy.baseDir)).absoluteFilePath(file);
            copy.data["file"] = QDir(newDir).relativeFilePath(abs).toStdString();
        }
    }
    try {
        copy.save(target.toStdString());
    } catch (const std::exception& ex) {
        if (error) *error = QString::fromStdString(ex.what());
        return false;
    }
    const QString abs = QFileInfo(target).absoluteFilePath();
    experiment_.data = copy.data;
    experiment_.baseDir = newDir.toStdString();
    if (abs != filePath_) {
        filePath_ = abs;
        Q_EMIT filePathChanged(filePath_);
    }
    undo_.setClean();
    setDirty(false);
    addRecentFile(filePath_);
    return true;
}

void ExperimentDocument::setData(const nlohmann::json& data, const QString& what) {
    if (experiment_.data == data) return;
    // The steps hold the price file as an absolute path: a Save As to another folder (which
    // rewrites relative paths) must not make an undo point at a file that is not there.
    auto absolute = [this](nlohmann::json d) {
        if (d.is_object() && d.contains("file") && d["file"].is_string()) {
            const QString f = QString::fromStdString(d["file"].get<std::string>());
            if (QFileInfo(f).isRelative())
                d["file"] =
                    QDir::cleanPath(
                        QDir(QString::fromStdString(experiment_.baseDir)).absoluteFilePath(f))
                        .toStdString();
        }
        return d;
    };
    undo_.push(new DocumentEditCommand(this, DocumentSection::Data, absolute(experiment_.data),
                                       absolute(data), what));
}

bool ExperimentDocument::setTraining(const TrainingConfig& training, const QString& what) {
    const nlohmann::json before = experiment_.training.toJson(), after = training.toJson();
    if (before == after) return true;
    // Only settings the experiment format accepts become a step (the monkey typed a weight
    // decay of 3 into a field whose validator allowed 10; the step's redo then threw).
    try {
        TrainingConfig::fromJson(after);
    } catch (const std::exception& e) {
        Q_EMIT editRejected(tr("Training: %1").arg(QString::fromUtf8(e.what())));
        return false;
    }
    undo_.push(new DocumentEditCommand(this, DocumentSection::Training, before, after, what));
    return true;
}

bool ExperimentDocument::setTrading(const nlohmann::json& trading, const QString& what) {
    const nlohmann::json before = experiment_.trading.toJson();
    nlohmann::json after;
    try {
        after = TradingSettings::fromJson(trading).toJson();
    } catch (const std::exception& e) {
        Q_EMIT editRejected(tr("Trading: %1").arg(QString::fromUtf8(e.what())));
        return false;
    }
    if (before == after) return true;
    undo_.push(new DocumentEditCommand(this, DocumentSection::Trading, before, after, what));
    return true;
}

bool ExperimentDocument::setValidation(const nlohmann::json& validation, const QString& what) {
    const nlohmann::json before = experiment_.validation.toJson();
    nlohmann::json after;
    try {
        after = ValidationConfig::fromJson(validation).toJson();
    } catch (const std::exception& e) {
        Q_EMIT editRejected(tr("Validation: %1").arg(QString::fromUtf8(e.what())));
        return false;
    }
    if (before == after) return true;
    undo_.push(new DocumentEditCommand(this, DocumentSection::Validation, before, after, what));
    return true;
}

void ExperimentDocument::applySection(DocumentSection section, const nlohmann::json& value) {
    switch (section) {
        case DocumentSection::Data:
            experiment_.data = value;
            Q_EMIT dataChanged();
            break;
        case DocumentSection::Training:
            experiment_.training = TrainingConfig::fromJson(value);
            Q_EMIT trainingChanged();
            break;
        case DocumentSection::Name:
            experiment_.name = value.get<std::string>();
            break;
        case DocumentSection::Trading:
            experiment_.trading = TradingSettings::fromJson(value);
            Q_EMIT tradingChanged();
            break;
        case DocumentSection::Validation:
            experiment_.validation = ValidationConfig::fromJson(value);
            Q_EMIT validationChanged();
            break;
    }
}

void ExperimentDocument::setView(const nlohmann::json& view) {
    if (experiment_.view == view) return;
    experiment_.view = view;
    setDirty(true);
}

void ExperimentDocument::applyPreset(const Experiment& preset, const QString& what) {
    const nlohmann::json& after =
        preset.model.contains("layers") ? preset.model["layers"] : nlohmann::json::array();
    undo_.beginMacro(what);
    if (layers() != after)
        undo_.push(new ModelEditCommand(this, what, layers(), -1, after, after.empty() ? -1 : 0));
    setTraining(preset.training, what);
    setName(QString::fromStdString(preset.name));
    undo_.endMacro();
}

void ExperimentDocument::setName(const QString& name) {
    if (experiment_.name == name.toStdString()) return;
    undo_.push(
        new DocumentEditCommand(this, DocumentSection::Name, experiment_.name, name.toStdString()));
}

void ExperimentDocument::setLayers(const nlohmann::json& layers, int selection) {
    experiment_.model["layers"] = layers;
    Q_EMIT layersChanged(selection);
}

QStringList ExperimentDocument::recentFiles() const {
    QSettings s;
    return s.value(QStringLiteral("recentFiles")).toStringList();
}

void ExperimentDocument::addRecentFile(const QString& path) {
    QStringList list = recentFiles();
    list.removeAll(path);
    list.prepend(path);
    while (list.size() > kMaxRecent) list.removeLast();
    QSettings s;
    s.setValue(QStringLiteral("recentFiles"), list);
    Q_EMIT recentFilesChanged();
}

void ExperimentDocument::setDirty(bool dirty) {
    dirty_ = dirty;
    emitModified();
}

void ExperimentDocument::emitModified() {
    const bool m = isModified();
    if (m == lastModified_) return;
    lastModified_ = m;
    Q_EMIT modifiedChanged(m);
}

}  // namespace nnwb
