// The window's commands as actions: New, Open, Save, Save As, Undo, Redo, Train, Pause and
// Stop with their shortcuts, icons and tool tips, the main tool bar, and the run actions'
// enabled state (Train needs an idle worker and a stack and data without a problem).
// GUI thread only.
#pragma once

#include <QObject>
#include <QString>

#include "app/core/TrainingController.h"

class QAction;
class QMainWindow;
class QUndoStack;

namespace nnwb {

class WindowActions : public QObject {
    Q_OBJECT
public:
    WindowActions(QMainWindow* window, QUndoStack* undo);

    QAction* newAct;
    QAction* openAct;
    QAction* saveAct;
    QAction* saveAsAct;
    QAction* undoAct;
    QAction* redoAct;
    QAction* trainAct;
    QAction* pauseAct;
    QAction* stopAct;

    // The tool bar: open, save | undo, redo | train, pause, stop.
    void addToolBar(QMainWindow* window);
    // `problem`: why the experiment cannot train ("" when it can).
    void updateRunActions(TrainingController::State s, const QString& problem);

private:
    void createUndoActions(QUndoStack* undo);
    QAction* make(const QString& text, const QKeySequence& key, const QString& tip, int icon);

    QMainWindow* window_;
};

}  // namespace nnwb
