// The Trading tab (beside Price Chart): everything about how the signals the price chart shows
// trade (a run's validation part, an opened run's model, a walk-forward's stitched
// out-of-sample series): the verdict in words (model/trading/Verdict.h) at the top; the equity
// with buy and hold and the random 5–95 % band over the underwater chart, fold boundaries
// marked; the monthly returns heatmap; the distribution of trade returns; entries by hour and
// weekday; the sortable trade list (a click asks to show the trade on the price chart); for a
// walk-forward the per-fold figures and the stitched confusion matrix beside each fold's.
// Scrolls at small window sizes. Shows what the TradingPresenter and WalkForwardPresenter hold;
// the figures come from model/trading. GUI thread only.
#pragma once

#include <cstddef>

#include <QScrollArea>
#include <QString>

class QLabel;

namespace nnwb {

class FoldConfusions;
class FoldTradingTable;
class TradeList;
class TradingBarChart;
class TradingCurves;
class TradingMonthTable;
class TradingPresenter;
class TradingTable;
class TradingView;
class WalkForwardPresenter;

class TradingTab : public QScrollArea {
    Q_OBJECT
public:
    TradingTab(TradingPresenter* trading, WalkForwardPresenter* walkForward,
               QWidget* parent = nullptr);

    QString verdict() const;
    TradingCurves* curves() const { return curves_; }
    TradingMonthTable* months() const { return months_; }
    TradingBarChart* distribution() const { return distribution_; }
    TradingBarChart* byHour() const { return byHour_; }
    TradingBarChart* byWeekday() const { return byWeekday_; }
    TradeList* trades() const { return trades_; }
    FoldTradingTable* folds() const { return folds_; }
    FoldConfusions* confusions() const { return confusions_; }
    // The walk-forward part (fold table, confusion matrices) is on show.
    bool showsFolds() const;
    // Puts `view` (the TradingView: caption, rules and exports, the figures table) under the
    // verdict; its own equity chart is hidden (the curves below show the equity). The table is
    // as tall as its header and three rows, and its scroll bar when its columns need one.
    void setFiguresView(TradingView* view);

Q_SIGNALS:
    // Show bars entryBar .. exitBar on the price chart (a trade of the list was clicked).
    void showTradeRequested(qulonglong entryBar, qulonglong exitBar);

protected:
    // The wheel over a chart scrolls the page (QCustomPlot keeps wheel events otherwise).
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void refresh();
    // The walk-forward's folds when the report is of its stitched series; false otherwise.
    bool refreshFolds();
    // Sets the figures table's height to its header, three rows and, when the columns are
    // wider than the table, the scroll bar: no empty room under the rows.
    void fitFiguresTable();

    TradingPresenter* trading_;
    WalkForwardPresenter* walkForward_;
    QLabel* verdict_;
    QLabel* caption_;
    TradingCurves* curves_;
    TradingMonthTable* months_;
    TradingBarChart* distribution_;
    TradingBarChart* byHour_;
    TradingBarChart* byWeekday_;
    TradeList* trades_;
    QWidget* foldPart_;
    FoldTradingTable* folds_;
    FoldConfusions* confusions_;
    TradingTable* figures_ = nullptr;
};

}  // namespace nnwb
