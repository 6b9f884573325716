// Run > Predict…: applies the current trained model (a ModelBundle taken from the training
// worker) to another price file. The file is read and the model run by a PredictJob of
// app/core (its own backend; Cancel or closing the dialog stops it); while it runs, a progress
// bar shows the rows done and Export is off. The window shows the file's price chart with the
// model's signals, the metrics over the labelled bars, the signals traded with the experiment's
// trading rules (the verdict line, the figures table and the equity curve under the chart, as
// `nnwb-cli predict --trading` computes them), and exports the rows of the file on show as CSV
// (the format of `nnwb-cli predict --csv`). Open Model File… predicts with a model bundle or an
// ensemble bundle from a file instead (an ensemble's rows gain agreement and spread, its
// signals need the trading rules' minAgreement). GUI thread only.
#pragma once

#include <memory>

#include <QDialog>
#include <QString>

#include "app/core/PredictJob.h"

class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QVBoxLayout;

namespace nnwb {

class EquityChart;
class PriceChart;
class TradingTable;

class PredictDialog : public QDialog {
    Q_OBJECT
public:
    // `trading`: the rules the predicted signals are traded with (the experiment's).
    PredictDialog(std::shared_ptr<const ModelBundle> bundle, const QString& device,
                  QWidget* parent = nullptr, const TradingSettings& trading = TradingSettings());
    ~PredictDialog() override;
    // Predicts with this ensemble (docs/ensembles.md; the dialog's bundle is its common part):
    // the chart shows its agreement under the candles.
    void setEnsemble(std::shared_ptr<const EnsembleBundle> ensemble);
    // Predicts with the model bundle or ensemble bundle in `path` from now on (the file on
    // show, if any, is predicted again with it). False with `error` set when the file cannot
    // be read or a prediction runs; the model in use stays then.
    bool openModelFile(const QString& path, QString* error);

    // Reads `path` and runs the model on it in the background; finished() tells the outcome.
    // The chart, metrics and rows of the previous file stay until then; Export is off.
    void predictFile(const QString& path);
    // Stops the running prediction (at its next batch); the previous file's rows stay.
    void cancelPrediction();
    bool busy() const;
    // The file whose rows the chart shows and Export CSV writes (empty: none yet).
    const QString& shownPath() const { return shownPath_; }
    PriceChart* chart() const { return chart_; }
    // The bars and the prediction of the file on show (null: none yet).
    std::shared_ptr<const BarSeries> shownBars() const { return bars_; }
    std::shared_ptr<const PredictionResult> result() const { return result_; }
    QString metricsText() const;
    // The trading of the file on show (null: none yet, or it could not be traded: then the
    // verdict line says why), its verdict line, figures table and equity curve.
    const TradingReport* tradingReport() const { return trading_.get(); }
    QString verdictText() const;
    TradingTable* tradingTable() const { return tradingTable_; }
    EquityChart* equityChart() const { return equity_; }
    // Writes the rows of the file on show; false with `error` set on failure or while a
    // prediction runs.
    bool exportCsv(const QString& path, QString* error);

public Q_SLOTS:
    void openFileDialog();
    void openModelFileDialog();
    void exportCsvDialog();

Q_SIGNALS:
    void finished(bool ok, const QString& message);

private:
    void addButtons(QVBoxLayout* layout);
    QWidget* createResultPanes();  // the equity curve, verdict, figures table and metrics
    void showTrading(const PredictOutcome& o);
    void showProgress(qint64 done, qint64 total);
    void showOutcome(const PredictOutcome& o);
    void updateButtons();
    // A new job for `bundle` (and `ensemble`, when not null) with the dialog's device and
    // trading rules; the title names it.
    void useModel(std::shared_ptr<const ModelBundle> bundle,
                  std::shared_ptr<const EnsembleBundle> ensemble);
    void showModelTitle();

    std::shared_ptr<const ModelBundle> bundle_;
    std::shared_ptr<const EnsembleBundle> ensemble_;
    std::shared_ptr<const PredictionResult> result_;
    std::shared_ptr<const BarSeries> bars_;  // the bars of result_
    std::shared_ptr<const TradingReport> trading_;
    QString shownPath_;  // the file of result_
    QLabel* title_;
    QLabel* status_;
    QProgressBar* progress_;
    PriceChart* chart_;
    QPlainTextEdit* metrics_;
    EquityChart* equity_;
    QLabel* verdict_;
    TradingTable* tradingTable_;
    QLabel* saved_;  // "Predictions written to …" after Export CSV
    QPushButton* exportButton_;
    QPushButton* openButton_;
    QPushButton* modelButton_;  // Open Model File…
    QPushButton* cancelButton_;
    QString device_;
    TradingSettings tradingSettings_;
    std::unique_ptr<PredictJob> job_;  // last member: destroyed (cancelled) first
};

// A warning when the price file `fileName` names another instrument than the model's training
// file `trainedOn` (the name up to its first '_', '.', '-', ',' or space; case ignored); ""
// when they agree or either has none.
QString otherInstrumentWarning(const QString& trainedOn, const QString& fileName);

}  // namespace nnwb
