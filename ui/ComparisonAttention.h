// Attention of a comparison side by side: one Score-matrix heatmap per run for the same layer
// (by position among the run's attention layers: block 3 against block 3), head and
// validation sample, picked once for all runs; a run without that layer or head says so in
// its column. GUI thread only.
#pragma once

#include <vector>

#include <QWidget>

#include "app/core/TrainingTypes.h"

class QComboBox;
class QLabel;
class QSpinBox;
class QStackedWidget;
class QVBoxLayout;

namespace nnwb {

class AttentionHeatmap;
class AttentionPickers;

class ComparisonAttention : public QWidget {
    Q_OBJECT
public:
    explicit ComparisonAttention(QWidget* parent = nullptr);

    // One column per run; forgets every snapshot.
    void setRuns(const QStringList& names, const std::vector<QColor>& colours);
    void setSnapshot(int run, const AttentionSnapshotPtr& snapshot);
    void clearSnapshots();
    AttentionHeatmap* heatmap(int run) const { return columns_.at(size_t(run)).heatmap; }
    bool showsHeatmap(int run) const;
    QComboBox* layerBox() const { return layer_; }
    QComboBox* headBox() const { return head_; }
    QSpinBox* sampleBox() const { return sample_; }

Q_SIGNALS:
    void sampleRequested(int sample);

private:
    void refillPickers();
    void showAll();

    struct Column {
        QLabel* title;
        QStackedWidget* pages;
        QVBoxLayout* layout;
        QLabel* placeholder;
        AttentionHeatmap* heatmap;
        AttentionSnapshotPtr snapshot;
    };
    std::vector<Column> columns_;
    AttentionPickers* pickers_;
    QComboBox* layer_;
    QComboBox* head_;
    QSpinBox* sample_;
    QWidget* row_;
};

}  // namespace nnwb
