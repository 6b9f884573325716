// Run > Predict…: applies the current trained model (a ModelBundle taken from the training
// worker) to another price file. The file is read and the model run on a thread of its own
// (its own backend, the result back through a CallQueue); the window shows the file's price
// chart with the model's signals, the metrics over the labelled bars, and exports the rows as
// CSV (the format of `nnwb-cli predict --csv`). GUI thread only.
#pragma once

#include <memory>

#include <QDialog>
#include <QString>

#include "model/ModelBundle.h"
#include "model/Predictor.h"

class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace nnwb {

class CallQueue;
class PriceChart;

class PredictDialog : public QDialog {
    Q_OBJECT
public:
    PredictDialog(std::shared_ptr<const ModelBundle> bundle, const QString& device,
                  QWidget* parent = nullptr);
    ~PredictDialog() override;

    // Reads `path` and runs the model on it in the background; finished() tells the outcome.
    void predictFile(const QString& path);
    bool busy() const { return busy_; }
    PriceChart* chart() const { return chart_; }
    QString metricsText() const;
    // Writes the rows of the last prediction; false with `error` set on failure.
    bool exportCsv(const QString& path, QString* error);

public Q_SLOTS:
    void openFileDialog();
    void exportCsvDialog();

Q_SIGNALS:
    void finished(bool ok, const QString& message);

private Q_SLOTS:
    void runQueuedCalls();

private:
    struct Outcome {
        bool ok = false;
        QString error, path;
        std::shared_ptr<const BarSeries> bars;
        std::shared_ptr<const PredictionResult> result;
    };
    void showOutcome(const Outcome& o);

    std::shared_ptr<const ModelBundle> bundle_;
    QString device_;
    std::shared_ptr<CallQueue> calls_;
    bool busy_ = false;
    std::shared_ptr<const PredictionResult> result_;
    QLabel* title_;
    QLabel* status_;
    PriceChart* chart_;
    QPlainTextEdit* metrics_;
    QPushButton* exportButton_;
    QPushButton* openButton_;
};

}  // namespace nnwb
