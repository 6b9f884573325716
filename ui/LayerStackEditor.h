// The Model pane: the layer stack as a table (type, output shape, parameters), a palette
// menu of every registered layer type, remove / move up / move down / duplicate, the
// parameter form of the selected layer, the stack's validity (the offending layer marked with
// the reason) and undo/redo through the document's QUndoStack. GUI thread only.
#pragma once

#include <QWidget>

class QHBoxLayout;
class QLabel;
class QMenu;
class QToolButton;
class QTreeWidget;

namespace nnwb {

class LayerParamForm;
class LayerStackModel;

class LayerStackEditor : public QWidget {
    Q_OBJECT
public:
    explicit LayerStackEditor(LayerStackModel* model, QWidget* parent = nullptr);

    int currentLayer() const;
    void setCurrentLayer(int index);
    // The palette: one action per registered layer type (objectName "add:<type>").
    QMenu* palette() const { return palette_; }
    QTreeWidget* table() const { return table_; }
    LayerParamForm* form() const { return form_; }

public Q_SLOTS:
    void addLayer(const QString& type);
    void removeCurrent();
    void moveCurrentUp();
    void moveCurrentDown();
    void duplicateCurrent();

private:
    // The Add (with the layer palette), Up, Down, Duplicate and Remove buttons.
    QHBoxLayout* createButtons();
    void refresh(int selection);
    void updateButtons();
    QToolButton* toolButton(const QString& text, const QString& tip, const char* name);

    LayerStackModel* model_;
    QTreeWidget* table_;
    QMenu* palette_;
    QToolButton* addButton_;
    QToolButton* removeButton_;
    QToolButton* upButton_;
    QToolButton* downButton_;
    QToolButton* duplicateButton_;
    QLabel* status_;
    LayerParamForm* form_;
};

}  // namespace nnwb
