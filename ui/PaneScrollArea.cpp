#include "ui/PaneScrollArea.h"

#include <QEvent>
#include <QScrollBar>

#include "ui/WheelGuard.h"

namespace nnwb {

namespace {
// Rows of a pane still shown when the dock is as short as it gets (the rest scrolls).
constexpr int kMinimumHeight = 120;
}  // namespace

PaneScrollArea::PaneScrollArea(QWidget* pane, QWidget* parent) : QScrollArea(parent) {
    setWidget(pane);
    setWidgetResizable(true);
    setFrameShape(QFrame::NoFrame);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    pane->installEventFilter(this);
    WheelGuard::install();  // its boxes take the wheel only when focused
}

QSize PaneScrollArea::minimumSizeHint() const {
    const QWidget* pane = widget();
    if (!pane) return QScrollArea::minimumSizeHint();
    const int frame = 2 * frameWidth();
    return {pane->minimumSizeHint().width() + verticalScrollBar()->sizeHint().width() + frame,
            kMinimumHeight};
}

bool PaneScrollArea::eventFilter(QObject* watched, QEvent* e) {
    // The pane's minimum width changed (a longer file name, a row shown): tell the dock.
    if (watched == widget() && e->type() == QEvent::LayoutRequest) updateGeometry();
    return QScrollArea::eventFilter(watched, e);
}

}  // namespace nnwb
