#include "app/core/TradingPresenter.h"

#include <array>
#include <exception>

#include "model/AtomicFile.h"
#include "model/trading/SignalSeries.h"
#include "model/trading/TradingCsv.h"
#include "model/trading/TradingEvaluation.h"
#include "model/trading/ValidationSignals.h"

namespace nnwb {

TradingPresenter::TradingPresenter(QObject* parent) : QObject(parent) {}

void TradingPresenter::setSettings(const TradingSettings& settings) {
    if (settings.toJson() == settings_.toJson()) return;
    settings_ = settings;
    evaluate();
}

void TradingPresenter::setSignals(std::shared_ptr<const BarSeries> bars, size_t firstBar,
                                  std::shared_ptr<const std::vector<float>> outputs,
                                  const QString& what) {
    auto series = std::make_shared<SignalSeries>();
    const size_t n = outputs ? outputs->size() / 3 : 0;
    for (size_t i = 0; i < n; ++i) {
        const std::array<float, 3> out{(*outputs)[3 * i], (*outputs)[3 * i + 1],
                                       (*outputs)[3 * i + 2]};
        series->add(firstBar + i, out, signalOfOutputs(out));
    }
    setSeries(std::move(bars), std::move(series), what);
}

void TradingPresenter::setSeries(std::shared_ptr<const BarSeries> bars,
                                 std::shared_ptr<const SignalSeries> series, const QString& what) {
    bars_ = std::move(bars);
    series_ = std::move(series);
    what_ = what;
    evaluate();
}

void TradingPresenter::clear() {
    bars_.reset();
    series_.reset();
    what_.clear();
    evaluate();
}

void TradingPresenter::evaluate() {
    report_.reset();
    error_.clear();
    if (bars_ && series_ && !series_->empty()) {
        try {
            report_ =
                std::make_shared<const TradingReport>(evaluateTrading(*bars_, *series_, settings_));
        } catch (const std::exception& e) {
            error_ = QString::fromUtf8(e.what());
        }
    }
    Q_EMIT changed();
}

bool TradingPresenter::exportTrades(const QString& path, QString* error) const {
    return writeCsv(path, true, error);
}

bool TradingPresenter::exportEquity(const QString& path, QString* error) const {
    return writeCsv(path, false, error);
}

bool TradingPresenter::writeCsv(const QString& path, bool trades, QString* error) const {
    if (!report_) {
        if (error) *error = tr("There is no trading evaluation to export: train a run first.");
        return false;
    }
    try {
        writeFileAtomic(path.toStdString(), trades ? tradesCsv(*report_) : equityCsv(*report_));
    } catch (const std::exception& e) {
        if (error) *error = QString::fromUtf8(e.what());
        return false;
    }
    return true;
}

}  // namespace nnwb
