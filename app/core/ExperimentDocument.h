// The experiment being edited in the window: the Experiment value, its file path, the modified
// flag, open/save (atomic) and the recent-files list kept in QSettings. Every edit of the
// layers, data, training, trading, validation or name is one command on the undo stack (LabPlot's
// rule); only the view settings are set directly. GUI thread only; training works on copies.
#pragma once

#include <QObject>
#include <QStringList>
#include <QUndoStack>

#include "app/core/DocumentEditCommand.h"
#include "model/Experiment.h"

namespace nnwb {

class ExperimentDocument : public QObject {
    Q_OBJECT
public:
    explicit ExperimentDocument(QObject* parent = nullptr);

    const Experiment& experiment() const { return experiment_; }
    const nlohmann::json& layers() const { return experiment_.model["layers"]; }
    QString filePath() const { return filePath_; }
    // "name.json" or "untitled" for display in the title bar.
    QString displayName() const;
    bool isModified() const { return dirty_ || !undo_.isClean(); }
    QUndoStack* undoStack() { return &undo_; }

    // Replaces the whole document (new experiment or a loaded file); clears undo history.
    void reset(const Experiment& experiment, const QString& path = {});
    // Opens a file; on failure returns false with the message and changes nothing.
    bool open(const QString& path, QString* error);
    // Saves atomically to `path` (or the current path when empty); clears the modified flag.
    bool save(const QString& path, QString* error);

    // Undoable edits of the other sections, one undo step each (`what`: the step's text; by
    // default it names what changed). No step when nothing changes.
    void setData(const nlohmann::json& data, const QString& what = {});
    // False (and editRejected) when the settings are outside what the format accepts.
    bool setTraining(const TrainingConfig& training, const QString& what = {});
    void setName(const QString& name);
    // The trading rules and costs (a `trading` section); false (and editRejected, naming the
    // setting) when the format refuses them.
    bool setTrading(const nlohmann::json& trading, const QString& what = {});
    // The validation settings (a `validation` section: holdout or walk-forward folds); false
    // (and editRejected, naming the setting) when the format refuses them.
    bool setValidation(const nlohmann::json& validation, const QString& what = {});
    // Applies a preset as `nnwb-cli train --experiment PRESET` trains it: its layers, training
    // settings and name (the data stays the user's), as one undo step named `what`.
    void applyPreset(const Experiment& preset, const QString& what);
    // View settings (splitter sizes and the like): direct, not undoable; marks modified.
    void setView(const nlohmann::json& view);
    // Sets a section without an undo step; used by DocumentEditCommand.
    void applySection(DocumentSection section, const nlohmann::json& value);
    // Replaces the layer array; used by the undo commands (selection = layer to select).
    void setLayers(const nlohmann::json& layers, int selection);

    QStringList recentFiles() const;
    void addRecentFile(const QString& path);
    static constexpr int kMaxRecent = 10;

Q_SIGNALS:
    void replaced();  // everything changed (new / open)
    void layersChanged(int selection);
    void dataChanged();
    void trainingChanged();
    void tradingChanged();
    void validationChanged();
    void modifiedChanged(bool modified);
    void filePathChanged(const QString& path);
    void recentFilesChanged();
    void editRejected(const QString& why);  // an edit that was not made, and why

private:
    void setDirty(bool dirty);
    void emitModified();

    Experiment experiment_;
    QString filePath_;
    QUndoStack undo_;
    bool dirty_ = false;
    bool lastModified_ = false;
};

}  // namespace nnwb
