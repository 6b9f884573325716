// One undoable edit of a section of the experiment other than the layers (data, training,
// name, trading, validation): the section's JSON before and after, applied through the document.
// Every edit is its own step (no merging), with a text naming what changed, e.g. "Data: window 20 →
// 12". GUI thread only (it edits the ExperimentDocument).
#pragma once

#include <QString>
#include <QUndoCommand>

#include <nlohmann/json.hpp>

namespace nnwb {

class ExperimentDocument;

enum class DocumentSection { Data, Training, Name, Trading, Validation };

class DocumentEditCommand : public QUndoCommand {
public:
    DocumentEditCommand(ExperimentDocument* doc, DocumentSection section, nlohmann::json before,
                        nlohmann::json after, const QString& text = {});

    void undo() override;
    void redo() override;

    // "Data: window 20 → 12" for one changed value, "Data: window, fractal" for several.
    static QString describe(const QString& section, const nlohmann::json& before,
                            const nlohmann::json& after);

private:
    ExperimentDocument* doc_;
    DocumentSection section_;
    nlohmann::json before_, after_;
};

}  // namespace nnwb
