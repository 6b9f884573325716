// The trading evaluation the window shows under the price chart: the signals the price chart
// shows (a run's validation part at the picked epoch, or a walk-forward's stitched
// out-of-sample series) traded under the experiment's trading
// settings (model/trading, rules in docs/trading.md): trades, equity, and the figures of the
// strategy, a buy-and-hold and a random-signal baseline. Keeps the shown report for export.
// QtCore; GUI thread (one evaluation of a few thousand bars takes milliseconds).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include <QObject>
#include <QString>

#include "model/data/BarSeries.h"
#include "model/trading/SignalSeries.h"
#include "model/trading/TradingReport.h"
#include "model/trading/TradingSettings.h"

namespace nnwb {

class TradingPresenter : public QObject {
    Q_OBJECT
public:
    explicit TradingPresenter(QObject* parent = nullptr);

    // The experiment's trading settings; the shown signals are evaluated again.
    void setSettings(const TradingSettings& settings);
    const TradingSettings& settings() const { return settings_; }
    // The signals to trade: the network's outputs [none, buy, sell] for bars firstBar,
    // firstBar + 1, ... of `bars` (3 values each), and what they are ("epoch 3, validation
    // part").
    void setSignals(std::shared_ptr<const BarSeries> bars, size_t firstBar,
                    std::shared_ptr<const std::vector<float>> outputs, const QString& what);
    // The signals to trade as a series of any bars of `bars` (a walk-forward's stitched
    // out-of-sample series, whose test windows may leave gaps).
    void setSeries(std::shared_ptr<const BarSeries> bars,
                   std::shared_ptr<const SignalSeries> series, const QString& what);
    // No signals (a new experiment, a cleared run).
    void clear();

    // The report of the shown signals; null when there are none or they could not be
    // evaluated (error() says why).
    std::shared_ptr<const TradingReport> report() const { return report_; }
    QString what() const { return what_; }
    // The bars the shown signals index (null: none).
    std::shared_ptr<const BarSeries> bars() const { return bars_; }
    QString error() const { return error_; }

    // Writes the shown report's trades (or its equity) as CSV, atomically (model/trading/
    // TradingCsv.h). False with the reason when there is no report or the file cannot be
    // written; an existing file is then left as it was.
    bool exportTrades(const QString& path, QString* error) const;
    bool exportEquity(const QString& path, QString* error) const;

Q_SIGNALS:
    // report(), what() or error() changed.
    void changed();

private:
    void evaluate();
    bool writeCsv(const QString& path, bool trades, QString* error) const;

    TradingSettings settings_;
    std::shared_ptr<const BarSeries> bars_;
    std::shared_ptr<const SignalSeries> series_;
    QString what_, error_;
    std::shared_ptr<const TradingReport> report_;
};

}  // namespace nnwb
