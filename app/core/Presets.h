// Finds the bundled architecture presets (resources/presets/*.json) and the default
// experiment in the resource folders (model/ResourceDirs.h: $NNWB_RESOURCE_DIR, beside the
// executable and in its ../share/nnwb, the source tree). Reads a preset's layer stack (a whole
// experiment file or {"layers": [...]}). Any thread.
#pragma once

#include <QString>
#include <QStringList>
#include <QVector>

#include <nlohmann/json.hpp>

#include "model/Experiment.h"

namespace nnwb {

struct PresetInfo {
    QString name;         // from the file's "name", else the file's base name
    QString description;  // from "description" when present
    QString path;
};

// Existing resource folders, most specific first (resourceSearchDirs() as QStrings).
QStringList resourceDirs();
QVector<PresetInfo> listPresets();
// The layer array of a preset file; false with a message when it has none or is unreadable.
bool loadPresetLayers(const QString& path, nlohmann::json* layers, QString* error);
// resources/experiments/default.json if found, else the first preset on the bundled data set,
// else a small built-in experiment (a synthetic task) that always works.
Experiment defaultExperiment(QString* sourcePath = nullptr);
// The built-in fallback.
Experiment builtinExperiment();

}  // namespace nnwb
