// Run > Predict…: applies the current trained model (a ModelBundle taken from the training
// worker) to another price file. The file is read and the model run by a PredictJob of
// app/core (its own backend; closing the dialog cancels it); the window shows the file's price
// chart with the model's signals, the metrics over the labelled bars, and exports the rows as
// CSV (the format of `nnwb-cli predict --csv`). GUI thread only.
#pragma once

#include <memory>

#include <QDialog>
#include <QString>

#include "app/core/PredictJob.h"

class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace nnwb {

class PriceChart;

class PredictDialog : public QDialog {
    Q_OBJECT
public:
    PredictDialog(std::shared_ptr<const ModelBundle> bundle, const QString& device,
                  QWidget* parent = nullptr);
    ~PredictDialog() override;

    // Reads `path` and runs the model on it in the background; finished() tells the outcome.
    void predictFile(const QString& path);
    bool busy() const;
    PriceChart* chart() const { return chart_; }
    QString metricsText() const;
    // Writes the rows of the last prediction; false with `error` set on failure.
    bool exportCsv(const QString& path, QString* error);

public Q_SLOTS:
    void openFileDialog();
    void exportCsvDialog();

Q_SIGNALS:
    void finished(bool ok, const QString& message);

private:
    void showOutcome(const PredictOutcome& o);

    std::shared_ptr<const ModelBundle> bundle_;
    std::shared_ptr<const PredictionResult> result_;
    QLabel* title_;
    QLabel* status_;
    PriceChart* chart_;
    QPlainTextEdit* metrics_;
    QLabel* saved_;  // "Predictions written to …" after Export CSV
    QPushButton* exportButton_;
    QPushButton* openButton_;
    std::unique_ptr<PredictJob> job_;  // last member: destroyed (cancelled) first
};

}  // namespace nnwb
