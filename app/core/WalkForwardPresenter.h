// What the window shows of a walk-forward validation: the planned folds on the loaded bars,
// each fold's row (period, epochs, best epoch, validation and test figures) as it starts and
// ends, and at the end the stitched out-of-sample figures; the stitched series goes to the
// TradingPresenter (the Trading tab); under scheme cpcv the rows are the
// splits and the outcome holds the paths (ui/CpcvView shows them). Fed by the TrainingController's
// walk-forward signals; the widgets only show its text. QtCore; GUI thread only.
#pragma once

#include <memory>
#include <vector>

#include <QObject>
#include <QString>
#include <QStringList>

#include "app/core/WalkForwardTypes.h"

namespace nnwb {

class TradingPresenter;

class WalkForwardPresenter : public QObject {
    Q_OBJECT
public:
    explicit WalkForwardPresenter(TradingPresenter* trading, QObject* parent = nullptr);

    // A walk-forward is on show (planned, running or ended) until clear().
    bool active() const { return plan_.bars != nullptr; }
    bool running() const { return running_; }
    const WalkForwardPlan& plan() const { return plan_; }
    const std::vector<FoldRecord>& folds() const { return folds_; }
    // The outcome; null until the walk-forward has ended.
    const WalkForwardOutcome* outcome() const { return ended_ ? &outcome_ : nullptr; }

    // The fold table: its column titles and one row per planned fold (the figures of a fold
    // not yet ended are "…" or empty).
    static QStringList columnTitles();
    std::vector<QStringList> rows() const;
    // One line: the plan, and what is going on ("fold 3/6 training", "6 folds done", why not).
    QString caption() const;
    // The stitched out-of-sample figures ("" until there are some).
    QString stitchedText() const;

    void planned(const WalkForwardPlan& plan);
    void foldStarted(const FoldRecord& record);
    void foldEnded(const FoldRecord& record);
    void finished(const WalkForwardOutcome& outcome);
    // The run ended (runFinished): a walk-forward that failed before planning shows nothing.
    void runEnded();
    void clear();

Q_SIGNALS:
    // Folds planned (the chart draws them) or cleared.
    void planChanged();
    // Rows, caption or stitched figures changed.
    void changed();

private:
    QStringList row(size_t k) const;
    QString cpcvCaption() const;  // caption() under scheme cpcv

    TradingPresenter* trading_;
    WalkForwardPlan plan_;
    std::vector<FoldRecord> folds_;  // started or ended, by index
    std::vector<bool> foldEnded_;
    WalkForwardOutcome outcome_;
    bool running_ = false, ended_ = false;
};

}  // namespace nnwb
