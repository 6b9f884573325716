// The price chart: candlesticks of a bar series (QCustomPlot's QCPFinancial) with the true
// buy/sell fractals as markers, the training/validation boundary, the model's signals (hits
// filled, false signals hollow), horizontal mouse zoom and pan, a range overview below, and a
// tooltip with the bar's date, OHLC, true label and the model's three outputs. The legend has a
// row of its own above the candles (never over them); panning and zooming stop a few bars
// beyond the first and the last bar. Replots are
// coalesced by a single-shot timer and zoomed-out views draw merged candles (CandleLevels),
// so 100,000 bars stay smooth. GUI thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <QString>
#include <QWidget>

#include "model/data/BarSeries.h"
#include "model/data/Fractals.h"
#include "ui/CandleLevels.h"

class QCustomPlot;
class QCPFinancial;
class QCPGraph;
class QCPItemRect;
class QCPItemStraightLine;
class QCPItemText;
class QLabel;
class QMouseEvent;
class QTimer;

namespace nnwb {

class AgreementStrip;

class PriceChart : public QWidget {
    Q_OBJECT
public:
    explicit PriceChart(QWidget* parent = nullptr);

    // Shows `bars` (kept, shared read-only) whole; drops split and signals.
    void setBars(std::shared_ptr<const BarSeries> bars, FractalRule rule = FractalRule::ThreeBar);
    std::shared_ptr<const BarSeries> bars() const { return bars_; }
    // The bar indices of the samples of each part (last bar of each window); a part with
    // first > last is empty. Draws the boundary and shades the validation part.
    void setSplit(size_t trainFirst, size_t trainLast, size_t validationFirst,
                  size_t validationLast);
    // The model's outputs [none, buy, sell] for bars firstBar, firstBar + 1, ... (3 values
    // each) and what they are ("epoch 3, validation").
    void setSignals(size_t firstBar, std::vector<float> outputs, const QString& label);
    void clearSignals();
    // An ensemble's agreement for bars firstBar, firstBar + 1, ... in the strip under the
    // candles (AgreementStrip); empty hides it. setSignals and setBars clear it.
    void setAgreement(size_t firstBar, std::vector<float> agreement);
    AgreementStrip* agreementStrip() const { return agreement_; }
    // What the signals on show are ("" when none).
    const QString& signalLabel() const { return signalLabel_; }
    // The room the visible range may have beyond the first and the last bar, in bars.
    static double rangeMargin(double visibleBars);
    // Visible bar range (indices, may be fractional).
    void showRange(double from, double to);
    // Centres the chart on bars entryBar .. exitBar (a trade), 4 times the trade's bars wide and
    // at least 120 bars.
    void showTrade(size_t entryBar, size_t exitBar);
    void showAll();
    // Merged candles when zoomed out (on by default; off only to measure what it saves).
    void setDecimation(bool on);

    QCustomPlot* plot() const { return plot_; }
    QCustomPlot* overview() const { return overview_; }
    // Shows or hides the range overview; the header's hint names it only while it is shown.
    void setOverviewShown(bool on);
    QString headerText() const;
    // Level of merged candles drawn now (0: one candle per bar) and bars per candle.
    size_t drawnLevel() const { return level_; }
    size_t barsPerCandle() const;
    // Milliseconds the last replot of the main chart took (QCustomPlot's own measure).
    double lastReplotMs() const;
    // Replots now (for measurements and screenshots); normal updates are coalesced.
    void replotNow();
    // The tooltip of bar `bar`: date, OHLC, true label, the model's outputs and signal.
    QString tooltipText(size_t bar) const;
    // Signals drawn: hits and false signals (bars with a label).
    size_t hitCount() const { return hits_; }
    size_t falseSignalCount() const { return falseSignals_; }
    // The bar under a pixel x of the main chart, or -1.
    long long barAt(double pixelX) const;

Q_SIGNALS:
    // A click (press and release without dragging) on bar `bar`.
    void barClicked(long long bar);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    // The price plot's candles, fractal and signal markers, validation shade and legend
    void createPlotItems();
    void createLegend();
    void onRangeChanged();
    void updateCandles();
    void updateMarkers();
    void updateValueRange();
    void updateOverviewWindow();
    void updateHeader();
    void scheduleReplot();
    void clampRange();

    std::shared_ptr<const BarSeries> bars_;
    std::vector<uint8_t> flags_;  // true fractals per bar
    FractalRule rule_ = FractalRule::ThreeBar;
    CandleLevels levels_;
    bool decimation_ = true;
    size_t level_ = 0;
    size_t shownLevel_ = static_cast<size_t>(-1);
    size_t trainFirst_ = 0, trainLast_ = 0, valFirst_ = 1, valLast_ = 0;
    size_t signalFirst_ = 0;
    std::vector<float> outputs_;
    QString signalLabel_;
    size_t hits_ = 0, falseSignals_ = 0;
    bool inRangeUpdate_ = false;
    QPoint pressPos_;
    bool pressed_ = false;

    QLabel* header_;
    QCustomPlot* plot_;
    QCustomPlot* overview_;
    AgreementStrip* agreement_;
    QCPFinancial* candles_;
    QCPGraph* trueBuy_;
    QCPGraph* trueSell_;
    QCPGraph* buyHit_;
    QCPGraph* buyFalse_;
    QCPGraph* sellHit_;
    QCPGraph* sellFalse_;
    QCPItemStraightLine* boundary_;
    QCPItemRect* validationShade_;
    QCPItemText* validationText_;
    QCPGraph* overviewLine_;
    QCPItemRect* overviewWindow_;
    QCPItemStraightLine* overviewBoundary_;
    QTimer* replotTimer_;
};

}  // namespace nnwb
