// One undoable edit of the layer stack (LabPlot's habit: every edit is a command): it keeps
// the layer array before and after, so add/remove/move/duplicate/edit-parameter/load-preset
// are all the same small class. Consecutive edits of one parameter of one layer merge into a
// single undo step. GUI thread only (it edits the ExperimentDocument).
#pragma once

#include <string>

#include <QUndoCommand>

#include <nlohmann/json.hpp>

namespace nnwb {

class ExperimentDocument;

class ModelEditCommand : public QUndoCommand {
public:
    // `mergeKey` non-empty (e.g. "2/neurons") lets consecutive edits with the same key merge.
    ModelEditCommand(ExperimentDocument* doc, const QString& text, nlohmann::json before,
                     int selectBefore, nlohmann::json after, int selectAfter,
                     std::string mergeKey = {});

    void undo() override;
    void redo() override;
    int id() const override { return mergeKey_.empty() ? -1 : 1; }
    bool mergeWith(const QUndoCommand* other) override;

private:
    ExperimentDocument* doc_;
    nlohmann::json before_, after_;
    int selectBefore_, selectAfter_;
    std::string mergeKey_;
};

}  // namespace nnwb
