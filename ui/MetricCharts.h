// The live charts of a run: loss, missed patterns % and accuracy % per epoch (training and
// validation; an ensemble's members as thin lines) and the learning rate, side by side, each
// with the best epoch marked; export of all of them to PNG and of every per-epoch figure to
// CSV. Keeps the epoch reports it was given. GUI thread only.
#pragma once

#include <vector>

#include <QWidget>

#include "model/Trainer.h"

namespace nnwb {

class LearningRateChart;
class MetricChart;
class SeriesChart;

class MetricCharts : public QWidget {
    Q_OBJECT
public:
    explicit MetricCharts(QWidget* parent = nullptr);

    void addEpoch(const EpochReport& report, bool hasValidation);
    // An ensemble member's epoch (report.model the member): thin lines under the ensemble's
    // curves; not in reports() nor the CSV.
    void addMemberEpoch(const EpochReport& report, bool hasValidation);
    void clear();
    const std::vector<EpochReport>& reports() const { return reports_; }
    MetricChart* lossChart() const { return charts_[0]; }
    MetricChart* missedChart() const { return charts_[1]; }
    MetricChart* accuracyChart() const { return charts_[2]; }
    LearningRateChart* learningRateChart() const { return rateChart_; }
    int bestEpoch() const { return bestEpoch_; }  // marked on every chart; 0: none

    // Renders the three charts side by side into one PNG; false with a message on failure.
    bool exportPng(const QString& path, QString* error) const;
    bool exportCsv(const QString& path, QString* error) const;

public Q_SLOTS:
    void exportPngDialog();
    void exportCsvDialog();

private:
    std::vector<SeriesChart*> all() const;
    // writeFileAtomic(path, bytes); false with its message in `error` on failure.
    static bool save(const QString& path, const std::string& bytes, QString* error);
    MetricChart* charts_[3];
    LearningRateChart* rateChart_;
    int bestEpoch_ = 0;
    std::vector<EpochReport> reports_;
    std::vector<bool> hasValidation_;
};

}  // namespace nnwb
