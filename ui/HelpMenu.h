// The Help menu of the window: About nnwb… (version, Qt, compiler, compute devices, the
// licences and the bundled data's attribution), First Steps… (a short guide to a first run) and
// the README (opened in the desktop's viewer). The dialogs are not modal. GUI thread only.
#pragma once

class QMainWindow;
class QMenu;
class QString;

namespace nnwb {

QMenu* addHelpMenu(QMainWindow* window);
// The texts, also for tests: HTML of the About box and of the first-steps guide.
QString aboutText();
QString firstStepsText();
// The README.md next to the resources ("" when not found).
QString readmePath();

}  // namespace nnwb
