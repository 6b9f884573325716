#include "ui/FieldUndoFilter.h"

#include <QAbstractSpinBox>
#include <QAction>
#include <QDoubleSpinBox>
#include <QKeyEvent>
#include <QLineEdit>
#include <QSpinBox>

namespace nnwb {

FieldUndoFilter::FieldUndoFilter(QWidget* window, QAction* undo, QAction* redo)
    : QObject(window), window_(window), undo_(undo), redo_(redo) {}

bool FieldUndoFilter::isCommitted(QObject* field) {
    QObject* o = field;
    // A spin box's editor is a QLineEdit child: judge the spin box.
    if (auto* edit = qobject_cast<QLineEdit*>(o))
        if (auto* spin = qobject_cast<QAbstractSpinBox*>(edit->parent())) o = spin;
    // What QSpinBox / QDoubleSpinBox::textFromValue write (protected there).
    auto shown = [](const QAbstractSpinBox* spin, QString text) {
        if (!spin->isGroupSeparatorShown()) text.remove(spin->locale().groupSeparator());
        return text;
    };
    if (auto* spin = qobject_cast<QSpinBox*>(o))
        return spin->cleanText() == shown(spin, spin->locale().toString(spin->value()));
    if (auto* spin = qobject_cast<QDoubleSpinBox*>(o))
        return spin->cleanText() ==
               shown(spin, spin->locale().toString(spin->value(), 'f', spin->decimals()));
    if (auto* edit = qobject_cast<QLineEdit*>(o)) return !edit->isModified();
    return true;
}

bool FieldUndoFilter::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() != QEvent::KeyPress && event->type() != QEvent::ShortcutOverride)
        return false;
    auto* key = static_cast<QKeyEvent*>(event);
    const bool undo = key->matches(QKeySequence::Undo);
    const bool redo = key->matches(QKeySequence::Redo) ||
                      (key->key() == Qt::Key_Y && key->modifiers() == Qt::ControlModifier);
    if (!undo && !redo) return false;
    auto* w = qobject_cast<QWidget*>(watched);
    if (!w || w->window() != window_) return false;
    if (!qobject_cast<QLineEdit*>(w) && !qobject_cast<QAbstractSpinBox*>(w)) return false;
    if (!isCommitted(w)) return false;  // the field undoes the user's typing
    if (event->type() == QEvent::ShortcutOverride) {
        event->accept();  // keep the key for this field's KeyPress, handled below
        return true;
    }
    QAction* a = undo ? undo_ : redo_;
    if (a->isEnabled()) a->trigger();
    return true;
}

}  // namespace nnwb
