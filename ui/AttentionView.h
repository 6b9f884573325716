// The attention pane: picks a layer (every Score matrix the network exposes), a head (or all
// heads as a grid) and a validation sample; shows the latest AttentionSnapshot the worker sent
// and asks for a new one when the sample changes. The pickers and the info line are in a
// column beside the heatmap (it keeps the pane's height). GUI thread only.
#pragma once

#include <QWidget>

#include "app/core/TrainingTypes.h"

class QComboBox;
class QLabel;
class QSpinBox;
class QStackedWidget;

namespace nnwb {

class AttentionGrid;
class AttentionHeatmap;
class AttentionPickers;

class AttentionView : public QWidget {
    Q_OBJECT
public:
    explicit AttentionView(QWidget* parent = nullptr);

    void setSnapshot(const AttentionSnapshotPtr& snapshot);
    void clear(const QString& message);
    // Whose weights the snapshots from now on show when not the run's network (an ensemble's
    // best member: "member 2 of 4, seed 6"), at the head of the info line; empty: the run's.
    void setModelNote(const QString& note);
    // Shows validation sample `sample` (asks the worker for its Score matrices); the info line
    // names the sample's bar date once the snapshot arrives.
    void showSample(int sample);
    AttentionSnapshotPtr snapshot() const { return snapshot_; }
    AttentionHeatmap* heatmap() const { return heatmap_; }
    AttentionGrid* grid() const { return grid_; }
    QComboBox* layerBox() const { return layer_; }
    QComboBox* headBox() const { return head_; }
    QSpinBox* sampleBox() const { return sample_; }
    QComboBox* weightsBox() const { return weights_; }

Q_SIGNALS:
    void sampleRequested(int sample);
    // The weights picker: the best epoch's (true) or the latest epoch's (false).
    void bestWeightsRequested(bool best);

private:
    void showCurrent();
    void fillHeads();

    AttentionSnapshotPtr snapshot_;
    QString modelNote_;
    QComboBox* layer_;
    QComboBox* head_;
    QSpinBox* sample_;
    QLabel* info_;
    QComboBox* weights_;
    AttentionPickers* pickers_;
    QStackedWidget* pages_;
    QLabel* placeholder_;
    AttentionHeatmap* heatmap_;
    AttentionGrid* grid_;
};

}  // namespace nnwb
