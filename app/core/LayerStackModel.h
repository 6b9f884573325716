// The edit model of the layer stack: add / remove / move / duplicate / edit-parameter /
// replace-all operations, each pushed as a ModelEditCommand on the document's QUndoStack,
// plus the live analysis (shapes, parameter counts, the offending layer) of the current stack
// against the data's sample shape. GUI thread only.
#pragma once

#include <QObject>
#include <QString>

#include <nlohmann/json.hpp>

#include "app/core/StackAnalysis.h"

namespace nnwb {

class ExperimentDocument;

class LayerStackModel : public QObject {
    Q_OBJECT
public:
    explicit LayerStackModel(ExperimentDocument* doc, QObject* parent = nullptr);

    const nlohmann::json& layers() const;
    int count() const;
    const StackAnalysis& analysis() const { return analysis_; }
    // "" when the stack can be trained, else why not (for Train's tooltip).
    QString problem() const;

    // Each returns false (and changes nothing) for an invalid index.
    bool addLayer(const std::string& type, int at = -1);  // at -1: append
    bool removeLayer(int index);
    bool moveLayer(int index, int delta);  // -1 up, +1 down
    bool duplicateLayer(int index);
    bool setParameter(int index, const std::string& key, const nlohmann::json& value);
    void replaceLayers(const nlohmann::json& layers, const QString& what);

    // Label of a layer for lists: "Dense" (from the registry) or the raw type.
    static QString typeLabel(const std::string& type);

Q_SIGNALS:
    // The stack or its analysis changed; `selection` is the layer to select (-1: keep).
    void changed(int selection);

private:
    void push(const QString& text, nlohmann::json after, int selectBefore, int selectAfter);
    void reanalyze();

    ExperimentDocument* doc_;
    StackAnalysis analysis_;
};

}  // namespace nnwb
