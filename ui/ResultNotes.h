// The two notes above the Experiment tab's charts: the error banner (the last failure, until
// the next run or successful load) and the note that the results on show come from another
// experiment than the one being edited. GUI thread only.
#pragma once

#include <QObject>

class QLabel;
class QVBoxLayout;
class QWidget;

namespace nnwb {

class ResultNotes : public QObject {
    Q_OBJECT
public:
    // Adds both labels (hidden) to `layout` of `parent`.
    ResultNotes(QWidget* parent, QVBoxLayout* layout);

    QLabel* banner() const { return banner_; }
    QLabel* staleNote() const { return stale_; }
    void showError(const QString& title, const QString& message);
    void hideError();
    void setStale(bool stale);

private:
    QLabel* banner_;
    QLabel* stale_;
};

}  // namespace nnwb
