// Sends Ctrl+Z / Ctrl+Y (and Ctrl+Shift+Z) pressed in a field of the window to the document's
// undo stack instead of the field's own text undo, unless the field holds text the user has
// typed but not yet committed (then the field undoes its typing, as any text field does).
// Installed on the application by MainWindow; GUI thread only.
#pragma once

#include <QObject>

class QAction;
class QWidget;

namespace nnwb {

class FieldUndoFilter : public QObject {
    Q_OBJECT
public:
    // `window`: only fields inside it are affected; `undo`/`redo`: the document's actions.
    FieldUndoFilter(QWidget* window, QAction* undo, QAction* redo);

    // True when `field` (a line edit or spin box, or a spin box's line edit) shows exactly the
    // committed value, so that an undo key belongs to the document.
    static bool isCommitted(QObject* field);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QWidget* window_;
    QAction* undo_;
    QAction* redo_;
};

}  // namespace nnwb
