// The mouse wheel over a spin box or combo box in a scrolling pane (the Sweeps form, the Data
// and Training docks) scrolls the pane unless that box has the keyboard focus: scrolling the
// pane changed the Run cap it passed over. One filter on the application covers every such
// box, those a pane makes later too. GUI thread only.
#pragma once

#include <QObject>

namespace nnwb {

class WheelGuard : public QObject {
    Q_OBJECT
public:
    // Installs the one guard on the application (again: nothing).
    static void install();

protected:
    bool eventFilter(QObject* watched, QEvent* e) override;

private:
    using QObject::QObject;
};

}  // namespace nnwb
