// A dock's pane in a scroll area that scrolls vertically only: the dock is never narrower than
// the pane's minimum width (plus a vertical scroll bar), so a window made narrow shrinks its
// central area rather than squeezing the Data or Training pane to a sliver. GUI thread only.
#pragma once

#include <QScrollArea>

namespace nnwb {

class PaneScrollArea : public QScrollArea {
    Q_OBJECT
public:
    explicit PaneScrollArea(QWidget* pane, QWidget* parent = nullptr);

    QSize minimumSizeHint() const override;

protected:
    bool eventFilter(QObject* watched, QEvent* e) override;
};

}  // namespace nnwb
