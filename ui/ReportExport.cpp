#include "ui/ReportExport.h"

#include <exception>
#include <filesystem>

#include <QAction>
#include <QFileInfo>
#include <QStatusBar>

#include "app/core/ExperimentDocument.h"
#include "app/core/QtText.h"
#include "app/core/SweepPresenter.h"
#include "app/core/TradingPresenter.h"
#include "app/core/WalkForwardPresenter.h"
#include "app/report/ReportPages.h"
#include "app/report/WalkForwardJson.h"
#include "app/runs/RunsDbPath.h"
#include "model/AtomicFile.h"
#include "model/data/DateTime.h"
#include "model/trading/HtmlReport.h"
#include "ui/FileDialogs.h"
#include "ui/MainWindow.h"
#include "ui/ReportPdf.h"
#include "ui/RunsView.h"
#include "ui/SweepsView.h"

namespace nnwb {

namespace {

// The runs database `path` names ("": the default), which must exist to be reported from.
std::string existingDatabase(const QString& path) {
    const std::string db = runsDbPath(path.toStdString());
    if (db.empty() || !std::filesystem::exists(db))
        throw ReportInputError("no runs database at " + (db.empty() ? std::string("(none)") : db));
    return db;
}

// The Trading tab shows the walk-forward's stitched out-of-sample series (as TradingTab).
bool tradesStitched(const TradingReport* report, const WalkForwardOutcome* o) {
    return report && o && o->outOfSample && !o->outOfSample->empty() &&
           o->outOfSample->bar.front() == report->firstBar &&
           o->outOfSample->bar.back() == report->lastBar;
}

}  // namespace

ReportExport::ReportExport(MainWindow* window) : QObject(window), window_(window) {
    action_ = new QAction(tr("Export &Report…"), this);
    action_->setObjectName(QStringLiteral("exportReportAction"));
    action_->setStatusTip(
        tr("Write the tear sheet of what the window shows (the Trading tab's run or prediction, "
           "a walk-forward, the selected run or the shown sweep) as HTML or PDF"));
    connect(action_, &QAction::triggered, this, &ReportExport::exportDialog);
}

QString ReportExport::reportHtml(QString* title, QString* error) const {
    try {
        if (window_->sweepsView()->isVisible()) {
            const int64_t id = window_->sweeps()->shownId();
            if (id <= 0) throw ReportInputError("pick a sweep on the Sweeps tab to report it");
            if (title) *title = tr("Sweep %1").arg(id);
            return q(sweepReportPage(existingDatabase(window_->sweeps()->database()), id));
        }
        if (window_->runsView()->isVisible()) {
            const std::vector<int64_t> ids = window_->runsView()->selectedIds();
            if (ids.empty()) throw ReportInputError("select a run on the Runs tab to report it");
            if (title) *title = tr("Run %1").arg(ids.front());
            return q(
                storedRunReportPage(existingDatabase(window_->runsDatabasePath()), ids.front()));
        }
        return experimentHtml(title, error);
    } catch (const std::exception& e) {
        if (error) *error = q(e.what());
        return {};
    }
}

QString ReportExport::experimentHtml(QString* title, QString* error) const {
    const TradingPresenter* trading = window_->tradingPresenter();
    const WalkForwardPresenter* wf = window_->walkForwardPresenter();
    const std::shared_ptr<const TradingReport> report = trading->report();
    const WalkForwardOutcome* o = wf->outcome();
    const bool stitched = tradesStitched(report.get(), o);
    if (o && wf->plan().bars && (stitched || !report)) {
        WalkForwardResult r;
        r.end = o->end;
        r.error = o->error.toStdString();
        r.folds = o->folds;
        if (o->outOfSample) r.outOfSample = *o->outOfSample;
        r.stitched = o->stitched;
        const WalkForwardPlan& plan = wf->plan();
        if (title) *title = tr("Walk-forward report");
        return q(walkForwardHtml(
            walkForwardOutput(r, *plan.bars, plan.plan, stitched ? report.get() : nullptr),
            plan.fileName.toStdString()));
    }
    if (!report) {
        if (error)
            *error = trading->error().isEmpty()
                         ? tr("Nothing to report yet: train, run a walk-forward, open a run or "
                              "predict a file (the Trading tab then shows it), select a run on "
                              "the Runs tab or show a sweep on the Sweeps tab.")
                         : tr("The Trading tab has no report: %1").arg(trading->error());
        return {};
    }
    const Experiment& e = window_->document()->experiment();
    const std::string name = e.name + ": " + trading->what().toStdString();
    const std::string file = e.data.is_object() ? e.data.value("file", std::string()) : "";
    std::string summary =
        file.empty() ? std::string("synthetic data") : QFileInfo(q(file)).fileName().toStdString();
    if (!report->equity.time.empty())
        summary += " (" + formatBarTime(report->equity.time.front()) + " .. " +
                   formatBarTime(report->equity.time.back()) + ")";
    summary += "; the trading of " + trading->what().toStdString() +
               " as the window's Trading tab shows it";
    if (title) *title = q(name);
    return q(runHtml(runReportInput(name, summary, *report)));
}

bool ReportExport::exportTo(const QString& path, QString* error) const {
    QString title;
    const QString html = reportHtml(&title, error);
    if (html.isEmpty()) return false;
    QByteArray bytes;
    if (path.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive)) {
        bytes = reportPdf(html, title, error);
        if (bytes.isEmpty()) return false;
    } else {
        bytes = html.toUtf8();
    }
    // writeFileAtomic as every save: a failed one leaves the old file, a symlink's target is
    // written, a device or FIFO written in place (never replaced by a file).
    try {
        writeFileAtomic(path.toStdString(), std::string(bytes.constData(), size_t(bytes.size())));
    } catch (const std::exception& e) {
        if (error) *error = q(e.what());
        return false;
    }
    return true;
}

void ReportExport::exportDialog() {
    const QString path = saveFileName(window_, tr("Export report"), QStringLiteral("report.html"),
                                      tr("HTML pages (*.html);;PDF documents (*.pdf)"));
    if (path.isEmpty()) return;
    QString error;
    if (!exportTo(path, &error)) {
        window_->showError(tr("Export Report"), error);
        return;
    }
    window_->statusBar()->showMessage(tr("Report written to %1").arg(path), 8000);
}

}  // namespace nnwb
