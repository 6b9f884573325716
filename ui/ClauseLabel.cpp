#include "ui/ClauseLabel.h"

#include <QFontMetrics>

#include "ui/ClauseText.h"

namespace nnwb {

ClauseLabel::ClauseLabel(const QString& text, QWidget* parent) : QLabel(parent) {
    setWhole(text);
}

void ClauseLabel::setWhole(const QString& text) {
    whole_ = text;
    updateGeometry();
    fit();
}

QSize ClauseLabel::sizeHint() const {
    const QMargins m = contentsMargins();
    return {fontMetrics().horizontalAdvance(whole_) + 2 * margin() + m.left() + m.right(),
            QLabel::sizeHint().height()};
}

QSize ClauseLabel::minimumSizeHint() const {
    return {0, QLabel::minimumSizeHint().height()};
}

void ClauseLabel::resizeEvent(QResizeEvent* e) {
    QLabel::resizeEvent(e);
    fit();
}

void ClauseLabel::showEvent(QShowEvent* e) {
    QLabel::showEvent(e);
    fit();
}

void ClauseLabel::fit() {
    // Hidden (the status bar hides it under a message), it has no width of its own yet: whole.
    const QString shown =
        !isVisible() ? whole_
                     : leadingClauses(whole_, fontMetrics(), contentsRect().width() - 2 * margin());
    setText(shown);
    setToolTip(shown == whole_ ? QString() : whole_);
}

}  // namespace nnwb
