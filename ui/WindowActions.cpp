#include "ui/WindowActions.h"

#include <QAction>
#include <QMainWindow>
#include <QStyle>
#include <QToolBar>
#include <QUndoStack>

namespace nnwb {

QAction* WindowActions::make(const QString& text, const QKeySequence& key, const QString& tip,
                             int icon) {
    auto* a =
        new QAction(window_->style()->standardIcon(QStyle::StandardPixmap(icon)), text, window_);
    if (!key.isEmpty()) a->setShortcut(key);
    a->setToolTip(tip);
    a->setStatusTip(tip);
    return a;
}

WindowActions::WindowActions(QMainWindow* window, QUndoStack* undo)
    : QObject(window), window_(window) {
    newAct = make(tr("&New"), QKeySequence::New, tr("New experiment"), QStyle::SP_FileIcon);
    openAct = make(tr("&Open…"), QKeySequence(Qt::CTRL | Qt::Key_O), tr("Open an experiment"),
                   QStyle::SP_DialogOpenButton);
    saveAct = make(tr("&Save"), QKeySequence(Qt::CTRL | Qt::Key_S), tr("Save the experiment"),
                   QStyle::SP_DialogSaveButton);
    saveAsAct = make(tr("Save &As…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S),
                     tr("Save the experiment under a new name"), QStyle::SP_DialogSaveButton);
    createUndoActions(undo);
    trainAct = make(tr("&Train"), QKeySequence(Qt::Key_F5), tr("Train (F5)"), QStyle::SP_MediaPlay);
    trainAct->setObjectName(QStringLiteral("trainAction"));
    pauseAct = make(tr("&Pause"), QKeySequence(Qt::Key_F6), tr("Pause / resume (F6)"),
                    QStyle::SP_MediaPause);
    stopAct = make(tr("&Stop"), QKeySequence(Qt::SHIFT | Qt::Key_F5), tr("Stop (Shift+F5)"),
                   QStyle::SP_MediaStop);
}

void WindowActions::createUndoActions(QUndoStack* undo) {
    undoAct = undo->createUndoAction(window_, tr("&Undo"));
    undoAct->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Z));
    undoAct->setIcon(window_->style()->standardIcon(QStyle::SP_ArrowBack));
    redoAct = undo->createRedoAction(window_, tr("&Redo"));
    redoAct->setShortcuts(
        {QKeySequence(Qt::CTRL | Qt::Key_Y), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z)});
    redoAct->setIcon(window_->style()->standardIcon(QStyle::SP_ArrowForward));
    // The tool bar shows short fixed labels (the menus and tooltips say what would be undone),
    // so that the buttons after them do not move as the undo text changes.
    undoAct->setIconText(tr("Undo"));
    redoAct->setIconText(tr("Redo"));
    // The lambdas hold the actions, not the window: the actions change while the window's
    // children are destroyed, when the window is no longer a MainWindow (UBSan's vptr check).
    for (QAction* a : {undoAct, redoAct})
        connect(a, &QAction::changed, a,
                [a] { a->setToolTip(a->text().remove(QLatin1Char('&'))); });
}

void WindowActions::addToolBar(QMainWindow* window) {
    auto* bar = window->addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("mainToolBar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->setMovable(false);
    bar->addAction(openAct);
    bar->addAction(saveAct);
    bar->addSeparator();
    bar->addAction(undoAct);
    bar->addAction(redoAct);
    bar->addSeparator();
    bar->addAction(trainAct);
    bar->addAction(pauseAct);
    bar->addAction(stopAct);
}

void WindowActions::updateRunActions(TrainingController::State s, const QString& problem) {
    using S = TrainingController::State;
    const bool idle = s == S::Idle;
    trainAct->setEnabled(idle && problem.isEmpty());
    trainAct->setToolTip(problem.isEmpty() ? (idle ? tr("Train (F5)") : tr("A run is in progress"))
                                           : tr("Cannot train: %1").arg(problem));
    pauseAct->setEnabled(s == S::Running || s == S::Paused);
    pauseAct->setText(s == S::Paused ? tr("&Resume") : tr("&Pause"));
    pauseAct->setIcon(window_->style()->standardIcon(s == S::Paused ? QStyle::SP_MediaPlay
                                                                    : QStyle::SP_MediaPause));
    stopAct->setEnabled(s == S::Running || s == S::Paused);
}

}  // namespace nnwb
