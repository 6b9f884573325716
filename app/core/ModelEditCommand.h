// One undoable edit of the layer stack (LabPlot's habit: every edit is a command): it keeps
// the layer array before and after, so add/remove/move/duplicate/edit-parameter/load-preset
// are all the same small class. Every edit is its own undo step: 6 → 7 → 100 undoes to 7, then
// to 6. GUI thread only (it edits the ExperimentDocument).
#pragma once

#include <QUndoCommand>

#include <nlohmann/json.hpp>

namespace nnwb {

class ExperimentDocument;

class ModelEditCommand : public QUndoCommand {
public:
    ModelEditCommand(ExperimentDocument* doc, const QString& text, nlohmann::json before,
                     int selectBefore, nlohmann::json after, int selectAfter);

    void undo() override;
    void redo() override;

private:
    ExperimentDocument* doc_;
    nlohmann::json before_, after_;
    int selectBefore_, selectAfter_;
};

}  // namespace nnwb
