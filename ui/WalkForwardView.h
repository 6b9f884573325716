// The Walk-Forward tab: the plan and progress of a walk-forward validation, the per-fold table
// (training and test periods, epochs, best epoch, validation and test figures) and the stitched
// out-of-sample figures, or under scheme cpcv the paths (ui/CpcvView); the folds themselves are
// drawn on the price chart, whose legend line is repeated here (not for cpcv, which draws no
// bands). The fold table is as tall as its rows; the page scrolls when the tab is shorter than
// its tables' five rows. After an ensemble's walk-forward (training.ensemble > 1) a table sets
// the ensemble against its members (single seed, median and best member, the agreement
// thresholds): the rows nnwb-cli walkforward prints, from the same library summary
// (app/ensemble ensembleWalkForwardRows). Shows what a WalkForwardPresenter holds. GUI thread
// only.
#pragma once

#include <QWidget>

class QLabel;
class QTableWidget;

namespace nnwb {

class WalkForwardPresenter;

class WalkForwardView : public QWidget {
    Q_OBJECT
public:
    explicit WalkForwardView(WalkForwardPresenter* presenter, QWidget* parent = nullptr);

    QTableWidget* foldTable() const { return table_; }
    QLabel* captionLabel() const { return caption_; }
    QLabel* stitchedLabel() const { return stitched_; }
    // The ensemble against its members (hidden unless the walk-forward on show was one).
    QTableWidget* ensembleTable() const { return ensembleTable_; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void refresh();
    // The fold table as tall as its rows, five at least, and its scroll bar when needed.
    void fitTable();
    void showEnsembleSummary();

    WalkForwardPresenter* presenter_;
    QLabel* caption_;
    QLabel* legend_;
    QTableWidget* table_;
    QLabel* stitched_;
    QLabel* ensembleCaption_;
    QTableWidget* ensembleTable_;
};

}  // namespace nnwb
