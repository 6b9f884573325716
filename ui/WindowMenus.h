// The window's menu bar: File (with Open Recent and the exports), Edit, Model (Add Layer,
// Presets, Load Weights), Run (train, predict, the comparison), View (the docks) and Help;
// Open Recent and Presets are rebuilt from the document's recent files and the preset folder.
// GUI thread only.
#pragma once

#include <QList>
#include <QObject>

class QDockWidget;
class QMenu;

namespace nnwb {

class ExportActions;
class MainWindow;
class WindowActions;

class WindowMenus : public QObject {
    Q_OBJECT
public:
    WindowMenus(MainWindow* window, WindowActions* actions, ExportActions* exports,
                const QList<QDockWidget*>& docks);

    void rebuildRecentMenu();
    void rebuildPresetMenu();

private:
    void addFileMenu(WindowActions* actions, ExportActions* exports);
    void addModelMenu();
    void addRunMenu(WindowActions* actions);

    MainWindow* window_;
    QMenu* recent_ = nullptr;
    QMenu* presets_ = nullptr;
};

}  // namespace nnwb
