// Finds the bundled architecture presets (resources/presets/*.json) and the default
// experiment in the resource folders (model/ResourceDirs.h: $NNWB_RESOURCE_DIR, beside the
// executable and in its ../share/nnwb, the source tree). A preset is named by its file's base
// name ("attention-single-head"), the name `nnwb-cli train/compare` accept, in every menu.
// Any thread.
#pragma once

#include <QString>
#include <QStringList>
#include <QVector>

#include "model/Experiment.h"

namespace nnwb {

struct PresetInfo {
    QString id;           // the file's base name: what the menus show and the CLI accepts
    QString name;         // from the file's "name" (the experiment's name), else the id
    QString description;  // from "description" when present
    QString path;
    // "name: description" (or the name): the menus' tooltip.
    QString summary() const {
        return description.isEmpty() ? name : name + QStringLiteral(": ") + description;
    }
};

// Existing resource folders, most specific first (resourceSearchDirs() as QStrings).
QStringList resourceDirs();
QVector<PresetInfo> listPresets();
// The path of the preset whose id is `id`; empty when there is none.
QString presetPath(const QString& id);
// A preset as `nnwb-cli train --experiment ID` reads it (Experiment::load); false with the
// message when it cannot be read.
bool loadPreset(const QString& path, Experiment* preset, QString* error);
// resources/experiments/default.json if found, else the first preset on the bundled data set,
// else a small built-in experiment (a synthetic task) that always works.
Experiment defaultExperiment(QString* sourcePath = nullptr);
// The built-in fallback.
Experiment builtinExperiment();

}  // namespace nnwb
