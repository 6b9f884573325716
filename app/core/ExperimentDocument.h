// The experiment being edited in the window: the Experiment value, its file path, the modified
// flag (layer edits through the undo stack plus direct section edits), open/save (atomic) and
// the recent-files list kept in QSettings. GUI thread only; training works on copies.
#pragma once

#include <QObject>
#include <QStringList>
#include <QUndoStack>

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

    // Direct (not undoable) edits of the other sections; each marks the document modified.
    void setData(const nlohmann::json& data);
    void setTraining(const TrainingConfig& training);
    void setView(const nlohmann::json& view);
    void setName(const QString& name);
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
    void modifiedChanged(bool modified);
    void filePathChanged(const QString& path);
    void recentFilesChanged();

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
