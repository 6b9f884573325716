#include "ui/WindowMenus.h"

#include <QAction>
#include <QDockWidget>
#include <QFileInfo>
#include <QMenuBar>

#include "app/core/ExperimentDocument.h"
#include "app/core/LayerStackModel.h"
#include "app/core/Presets.h"
#include "ui/ComparisonView.h"
#include "ui/DataPanel.h"
#include "ui/ExportActions.h"
#include "ui/FileDialogs.h"
#include "ui/HelpMenu.h"
#include "ui/LayerStackEditor.h"
#include "ui/MainWindow.h"
#include "ui/MetricCharts.h"
#include "ui/ModelActions.h"
#include "ui/ReportExport.h"
#include "ui/WindowActions.h"

namespace nnwb {

WindowMenus::WindowMenus(MainWindow* window, WindowActions* actions, ExportActions* exports,
                         const QList<QDockWidget*>& docks)
    : QObject(window), window_(window) {
    addFileMenu(actions, exports);
    QMenu* edit = window->menuBar()->addMenu(tr("&Edit"));
    edit->addAction(actions->undoAct);
    edit->addAction(actions->redoAct);
    addModelMenu();
    addRunMenu(actions);
    QMenu* view = window->menuBar()->addMenu(tr("&View"));
    for (QDockWidget* d : docks) view->addAction(d->toggleViewAction());
    addHelpMenu(window);
    rebuildRecentMenu();
    connect(window->document(), &ExperimentDocument::recentFilesChanged, this,
            &WindowMenus::rebuildRecentMenu);
}

void WindowMenus::addFileMenu(WindowActions* actions, ExportActions* exports) {
    QMenu* file = window_->menuBar()->addMenu(tr("&File"));
    file->addAction(actions->newAct);
    file->addAction(actions->openAct);
    QAction* openData = file->addAction(tr("Open &Data…"));
    openData->setObjectName(QStringLiteral("openDataAction"));
    openData->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    openData->setStatusTip(tr("Use a price file (MT5, MT4 or generic OHLCV CSV) as the data"));
    connect(openData, &QAction::triggered, window_->dataPanel(), &DataPanel::browse);
    recent_ = file->addMenu(tr("Open &Recent"));
    file->addSeparator();
    file->addAction(actions->saveAct);
    file->addAction(actions->saveAsAct);
    file->addSeparator();
    QAction* csv = file->addAction(tr("Export Metrics as &CSV…"));
    QAction* png = file->addAction(tr("Export Charts as &PNG…"));
    connect(csv, &QAction::triggered, window_->charts(), &MetricCharts::exportCsvDialog);
    connect(png, &QAction::triggered, window_->charts(), &MetricCharts::exportPngDialog);
    file->addAction(window_->reportExport()->action());
    file->addAction(exports->weightsAction());
    file->addAction(window_->modelActions()->exportAction());
    QMenu* exportMenu = file->addMenu(tr("E&xport"));
    exportMenu->addAction(exports->onnxAction());
    exportMenu->addAction(exports->mql5Action());
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"));
    quit->setShortcut(QKeySequence::Quit);
    connect(quit, &QAction::triggered, window_, &QWidget::close);
}

void WindowMenus::addModelMenu() {
    QMenu* model = window_->menuBar()->addMenu(tr("&Model"));
    QMenu* add = model->addMenu(tr("&Add Layer"));
    for (QAction* a : window_->layerEditor()->palette()->actions()) add->addAction(a);
    presets_ = model->addMenu(tr("&Presets"));
    rebuildPresetMenu();
    model->addSeparator();
    QAction* load = model->addAction(tr("&Load Weights…"));
    load->setToolTip(
        tr("Load trained weights (safetensors) into this model; Train "
           "then offers to continue from them"));
    connect(load, &QAction::triggered, this, [this] {
        const QString path = openFileName(window_, tr("Load weights"), QString(),
                                          tr("safetensors (*.safetensors);;All files (*)"));
        if (!path.isEmpty()) window_->loadWeights(path);
    });
}

void WindowMenus::addRunMenu(WindowActions* actions) {
    QMenu* run = window_->menuBar()->addMenu(tr("&Run"));
    run->addAction(actions->trainAct);
    run->addAction(actions->pauseAct);
    run->addAction(actions->stopAct);
    run->addAction(window_->modelActions()->predictAction());
    run->addSeparator();
    QAction* compare = run->addAction(tr("&Compare Experiments"));
    compare->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_K));
    compare->setToolTip(tr("Train several experiments side by side (Comparison tab)"));
    connect(compare, &QAction::triggered, window_, [this] { window_->showComparison(); });
    ComparisonView* view = window_->comparisonView();
    run->addAction(view->trainAllAction());
    run->addAction(view->stopAllAction());
    run->addAction(tr("Open Comparison Set…"), view, &ComparisonView::openSetDialog);
    run->addAction(tr("Save Comparison Set…"), view, &ComparisonView::saveSetDialog);
}

void WindowMenus::rebuildRecentMenu() {
    recent_->clear();
    const QStringList files = window_->document()->recentFiles();
    for (const QString& f : files) {
        QAction* a = recent_->addAction(QFileInfo(f).fileName());
        a->setToolTip(f);
        a->setStatusTip(f);
        connect(a, &QAction::triggered, window_, [this, f] {
            if (window_->maybeSave()) window_->openExperiment(f);
        });
    }
    recent_->setEnabled(!files.isEmpty());
}

void WindowMenus::rebuildPresetMenu() {
    presets_->clear();
    const auto presets = listPresets();
    for (const PresetInfo& p : presets) {
        QAction* a = presets_->addAction(p.id);
        a->setToolTip(p.summary());
        a->setStatusTip(a->toolTip());
        const QString path = p.path, id = p.id;
        connect(a, &QAction::triggered, window_, [this, path, id] {
            Experiment preset;
            QString error;
            if (!loadPreset(path, &preset, &error))
                window_->showError(tr("Preset"), error);
            else
                window_->document()->applyPreset(preset, tr("Load preset %1").arg(id));
        });
    }
    presets_->setToolTipsVisible(true);
    if (presets.isEmpty()) presets_->addAction(tr("(no presets found)"))->setEnabled(false);
}

}  // namespace nnwb
