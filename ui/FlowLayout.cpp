#include "ui/FlowLayout.h"

#include <algorithm>

#include <QWidget>

namespace nnwb {

FlowLayout::FlowLayout(QWidget* parent, int spacing) : QLayout(parent), spacing_(spacing) {}

FlowLayout::~FlowLayout() {
    while (QLayoutItem* item = takeAt(0)) delete item;
}

void FlowLayout::addItem(QLayoutItem* item) {
    items_.append(item);
}

QLayoutItem* FlowLayout::itemAt(int index) const {
    return index >= 0 && index < items_.size() ? items_.at(index) : nullptr;
}

QLayoutItem* FlowLayout::takeAt(int index) {
    return index >= 0 && index < items_.size() ? items_.takeAt(index) : nullptr;
}

void FlowLayout::insertWidget(int index, QWidget* widget) {
    addChildWidget(widget);
    items_.insert(std::clamp(index, 0, int(items_.size())), new QWidgetItem(widget));
    invalidate();
}

int FlowLayout::heightForWidth(int width) const {
    return place(QRect(0, 0, width, 0), false);
}

QSize FlowLayout::minimumSize() const {
    QSize size;
    for (const QLayoutItem* item : items_)
        if (!item->isEmpty()) size = size.expandedTo(item->minimumSize());
    const QMargins m = contentsMargins();
    return size + QSize(m.left() + m.right(), m.top() + m.bottom());
}

QSize FlowLayout::sizeHint() const {
    // All on one line.
    int w = 0, h = 0;
    for (const QLayoutItem* item : items_) {
        if (item->isEmpty()) continue;
        w += (w > 0 ? spacing_ : 0) + item->sizeHint().width();
        h = std::max(h, item->sizeHint().height());
    }
    const QMargins m = contentsMargins();
    return {w + m.left() + m.right(), h + m.top() + m.bottom()};
}

void FlowLayout::setGeometry(const QRect& rect) {
    QLayout::setGeometry(rect);
    place(rect, true);
}

int FlowLayout::place(const QRect& rect, bool apply) const {
    const QRect area = rect.marginsRemoved(contentsMargins());
    int x = area.x(), y = area.y(), lineHeight = 0;
    // One line's items, placed when the line is full (vertically centred on it).
    QList<QLayoutItem*> line;
    auto flush = [&] {
        if (apply) {
            int lx = area.x();
            for (QLayoutItem* item : line) {
                // An item wider than the whole line gets the line (not less than its minimum).
                const QSize s(std::max(std::min(item->sizeHint().width(), area.width()),
                                       item->minimumSize().width()),
                              std::min(item->sizeHint().height(), lineHeight));
                item->setGeometry(QRect(QPoint(lx, y + (lineHeight - s.height()) / 2), s));
                lx += s.width() + spacing_;
            }
        }
        line.clear();
    };
    for (QLayoutItem* item : items_) {
        if (item->isEmpty()) continue;
        const QSize s = item->sizeHint();
        if (!line.isEmpty() && x + s.width() > area.right() + 1) {
            flush();
            x = area.x();
            y += lineHeight + spacing_;
            lineHeight = 0;
        }
        line.append(item);
        x += s.width() + spacing_;
        lineHeight = std::max(lineHeight, s.height());
    }
    flush();
    const QMargins m = contentsMargins();
    return y + lineHeight - rect.y() + m.bottom();
}

}  // namespace nnwb
