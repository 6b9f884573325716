// File > Export Report…: the tear sheet of what the window shows, as one self-contained HTML file
// or a PDF. The page is the one `nnwb-cli report` writes (app/report/ReportPages.h,
// model/trading/HtmlReport.h): on the Sweeps tab the shown sweep; on the Runs tab the selected
// run (as stored); otherwise an ended walk-forward (its folds, with the stitched trading while
// the Trading tab shows it) or the run, opened model or prediction the Trading tab shows. Saved
// through writeFileAtomic (a symlink's target written, a device written in place, never
// replaced by a file). GUI thread.
#pragma once

#include <QObject>
#include <QString>

class QAction;

namespace nnwb {

class MainWindow;

class ReportExport : public QObject {
    Q_OBJECT
public:
    explicit ReportExport(MainWindow* window);

    QAction* action() const { return action_; }
    // The page of what the window shows and its title; "" with `error` set when it shows
    // nothing to report or the page cannot be made.
    QString reportHtml(QString* title, QString* error) const;
    // Writes the report to `path`: a PDF when `path` ends in .pdf, else HTML. False with
    // `error` set; an existing file is then left as it was.
    bool exportTo(const QString& path, QString* error) const;

public Q_SLOTS:
    // Asks for the file (HTML or PDF), writes it and tells the outcome in the status bar, or
    // the error through the window.
    void exportDialog();

private:
    // The page of the Experiment tab: the walk-forward or the Trading tab's report.
    QString experimentHtml(QString* title, QString* error) const;

    MainWindow* window_;
    QAction* action_;
};

}  // namespace nnwb
