#include "ui/WheelGuard.h"

#include <QAbstractScrollArea>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QEvent>

namespace nnwb {

void WheelGuard::install() {
    static WheelGuard* guard = nullptr;
    if (guard || !qApp) return;
    guard = new WheelGuard(qApp);
    qApp->installEventFilter(guard);
}

namespace {
bool inScrollArea(const QWidget* w) {
    for (const QWidget* up = w->parentWidget(); up; up = up->parentWidget())
        if (qobject_cast<const QAbstractScrollArea*>(up)) return true;
    return false;
}
}  // namespace

bool WheelGuard::eventFilter(QObject* watched, QEvent* e) {
    const QEvent::Type type = e->type();
    if ((type != QEvent::Wheel && type != QEvent::Show) || !watched->isWidgetType()) return false;
    auto* box = static_cast<QWidget*>(watched);
    if (!qobject_cast<QAbstractSpinBox*>(box) && !qobject_cast<QComboBox*>(box)) return false;
    if (!inScrollArea(box)) return false;
    if (type == QEvent::Show) {
        // Qt's WheelFocus gave the box the focus as the wheel reached it, so it took the wheel.
        if (box->focusPolicy() == Qt::WheelFocus) box->setFocusPolicy(Qt::StrongFocus);
        return false;
    }
    if (box->hasFocus()) return false;
    // Not the box's: ignored, QApplication hands the wheel on to its parents (the scroll area).
    e->ignore();
    return true;
}

}  // namespace nnwb
