// The price chart tab of the experiment view: the PriceChart of the loaded price file with the
// current run's training/validation boundary and the model's validation signals after each
// epoch, and a picker for whose signals are drawn (the latest epoch, the run's best epoch on
// its monitored metric, any epoch of the run, or an ensemble run's kept ensemble). Clicking a
// validation bar asks for that sample in the attention view. The TradingPresenter is handed the
// signals the chart shows (the Trading tab shows how they trade). During a walk-forward the folds
// are drawn on the chart (FoldBands) and, when its test windows are contiguous, the stitched
// out-of-sample signals. GUI thread only.
#pragma once

#include <memory>
#include <vector>

#include <QWidget>

#include "app/core/TrainingTypes.h"
#include "app/core/WalkForwardTypes.h"
#include "model/Trainer.h"
#include "model/trading/SignalSeries.h"

class QComboBox;
class QSplitter;

namespace nnwb {

class FoldBands;
class PriceChart;
class TradingPresenter;

class PriceChartPane : public QWidget {
    Q_OBJECT
public:
    explicit PriceChartPane(QWidget* parent = nullptr);
    ~PriceChartPane() override;

    PriceChart* chart() const { return chart_; }
    QComboBox* signalPicker() const { return picker_; }
    // Hands `presenter` the signals the chart draws from now on.
    void setTrading(TradingPresenter* presenter);
    // A price file was opened in the Data pane (outside a run): show its bars.
    void setFileBars(std::shared_ptr<const BarSeries> bars);
    void runStarted(const RunInfo& info);
    void epochFinished(const EpochReport& report);
    // Loaded weights (Runs ▸ Open Model, Load Weights): their signals on the run's validation
    // part, named as the opened model's.
    void showModelSignals(const RunInfo& info, const EpochReport& report);
    // After an ensemble run: the kept ensemble's signals (each member's kept epoch, combined) and
    // agreement on the validation part, first in the picker ("the kept ensemble of N seeds") and
    // shown, traded with the agreement (minAgreement); the ensemble's epochs stay to pick.
    void showKeptEnsemble(const EnsembleKept& kept);
    // Another experiment (File > New, Open): the previous run's split and signals go; the
    // bars stay until the new experiment's data is read.
    void clearRun();
    // A walk-forward: its bars with the planned folds drawn (the run's split and signals go).
    void showWalkForward(const WalkForwardPlan& plan);
    // The stitched out-of-sample signals on the chart (when they cover their range without a
    // gap; the trading view trades them either way).
    void showOutOfSample(const SignalSeries& series, const QString& label);
    const FoldBands& foldBands() const { return *folds_; }
    // Centres the chart on bars entryBar .. exitBar (a trade), 4 times the trade's bars wide and
    // at least 120 bars (a trade near the first or last bar as near the middle as the chart's
    // margin lets it).
    void showTrade(size_t entryBar, size_t exitBar);

Q_SIGNALS:
    // A bar of the validation part was clicked: its sample index.
    void validationSampleClicked(int sample);

protected:
    // Below 480 px the chart's range overview goes.
    void resizeEvent(QResizeEvent* e) override;

private:
    struct EpochSignals {
        int epoch = 0;
        double validationLoss = 0.0;
        std::shared_ptr<const std::vector<float>> outputs;
    };
    void showPicked();
    void rebuildPicker();

    // Hands the trading presenter the signals shown (null: none).
    void trade(const EpochSignals* shown);
    // The kept ensemble's signals and agreement on the chart, to the trading presenter.
    void showEnsemble();

    PriceChart* chart_;
    std::unique_ptr<FoldBands> folds_;
    QSplitter* split_;
    TradingPresenter* trading_ = nullptr;
    QComboBox* picker_;
    RunInfo run_;
    bool haveRun_ = false;
    std::vector<EpochSignals> epochs_;
    int bestEpoch_ = 0;         // the run's best epoch on its monitored metric (0: none yet)
    bool loadedModel_ = false;  // the signals are loaded weights', not a run's epochs
    // The kept ensemble's validation signals with their agreement (null: not an ensemble run),
    // the picker's first item then.
    std::shared_ptr<const SignalSeries> ensemble_;
    int ensembleMembers_ = 0;
    bool pickerHasEnsemble_ = false;  // the picker's first item is the kept ensemble
};

}  // namespace nnwb
