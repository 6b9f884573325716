// A pane in a scroll area that scrolls vertically only: the area is never narrower than the
// pane's minimum width (plus a vertical scroll bar), so a window made narrow shrinks its central
// area rather than squeezing the Data or Training pane to a sliver; and only 120 px tall at
// least, so that a pane (a dock's, the Experiment page, the sweep spec form) scrolls on a 600 px
// screen instead of making the window taller than it. GUI thread only.
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
