// The parameter form of the selected layer, built generically from the layer type's
// LayerParamSpec list (Int → spin box with min/max, Bool → check box, Choice → combo box), so
// layer types added to the registry later appear without GUI changes. Widgets are named
// "param:<key>". Edits are reported, never applied here (the editor pushes undo commands).
// GUI thread only.
#pragma once

#include <string>

#include <QWidget>

#include <nlohmann/json.hpp>

class QFormLayout;
class QLabel;

namespace nnwb {

struct LayerParamSpec;

class LayerParamForm : public QWidget {
    Q_OBJECT
public:
    explicit LayerParamForm(QWidget* parent = nullptr);

    // Shows the parameters of `layer` (index `index`); rebuilds the widgets only when the layer
    // index or type changed, else updates their values. index -1 clears the form.
    void setLayer(int index, const nlohmann::json& layer);
    int layerIndex() const { return index_; }

Q_SIGNALS:
    void parameterEdited(int index, const std::string& key, const nlohmann::json& value);

private:
    // The field that edits one parameter (by its kind), sending parameterEdited.
    QWidget* editorFor(const LayerParamSpec& spec);
    void rebuild(const nlohmann::json& layer);
    void updateValues(const nlohmann::json& layer);

    QLabel* title_;
    QLabel* description_;
    QWidget* fields_;
    QFormLayout* form_;
    int index_ = -1;
    std::string type_;
};

}  // namespace nnwb
