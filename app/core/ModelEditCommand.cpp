#include "app/core/ModelEditCommand.h"

#include "app/core/ExperimentDocument.h"

namespace nnwb {

ModelEditCommand::ModelEditCommand(ExperimentDocument* doc, const QString& text,
                                   nlohmann::json before, int selectBefore,
                                   nlohmann::json after, int selectAfter, std::string mergeKey)
    : QUndoCommand(text),
      doc_(doc),
      before_(std::move(before)),
      after_(std::move(after)),
      selectBefore_(selectBefore),
      selectAfter_(selectAfter),
      mergeKey_(std::move(mergeKey)) {}

void ModelEditCommand::undo() { doc_->setLayers(before_, selectBefore_); }

void ModelEditCommand::redo() { doc_->setLayers(after_, selectAfter_); }

bool ModelEditCommand::mergeWith(const QUndoCommand* other) {
    const auto* o = dynamic_cast<const ModelEditCommand*>(other);
    if (!o || o->mergeKey_ != mergeKey_ || mergeKey_.empty()) return false;
    after_ = o->after_;
    selectAfter_ = o->selectAfter_;
    return true;
}

}  // namespace nnwb
