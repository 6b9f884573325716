#include "app/core/ModelEditCommand.h"

#include "app/core/ExperimentDocument.h"

namespace nnwb {

ModelEditCommand::ModelEditCommand(ExperimentDocument* doc, const QString& text,
                                   nlohmann::json before, int selectBefore, nlohmann::json after,
                                   int selectAfter)
    : QUndoCommand(text),
      doc_(doc),
      before_(std::move(before)),
      after_(std::move(after)),
      selectBefore_(selectBefore),
      selectAfter_(selectAfter) {}

void ModelEditCommand::undo() {
    doc_->setLayers(before_, selectBefore_);
}

void ModelEditCommand::redo() {
    doc_->setLayers(after_, selectAfter_);
}

}  // namespace nnwb
