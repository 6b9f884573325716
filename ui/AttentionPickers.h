// The row above attention heatmaps: a bold title, a layer picker, a head picker, a validation
// sample spin box (no keyboard tracking), the colour scale (whole matrix or per row) and an
// info label, the pickers hidden until there is something to pick. Used by AttentionView and
// ComparisonAttention. GUI thread only.
#pragma once

#include <string>
#include <vector>

#include <QWidget>

class QComboBox;
class QLabel;
class QSpinBox;

namespace nnwb {

class FlowLayout;

class AttentionPickers : public QWidget {
    Q_OBJECT
public:
    // Object names of the pickers: <prefix>Layer, <prefix>Head, <prefix>Sample.
    AttentionPickers(const QString& title, const QString& prefix, QWidget* parent = nullptr);

    QComboBox* layer() const { return layer_; }
    QComboBox* head() const { return head_; }
    QSpinBox* sample() const { return sample_; }
    // Index 0: one colour scale for the whole matrix; 1: each row relative to its maximum.
    QComboBox* colourScale() const { return colourScale_; }
    bool rowNormalized() const;
    QLabel* info() const { return info_; }
    void setPickersVisible(bool visible);
    // Another picker after the built-in ones (shown and hidden with them).
    void addControl(QWidget* control);
    // "layers.1.block.3" (the 0-based tensor name) as the 1-based label of the layer list:
    // "layer 2 · block 4".
    static QString layerLabel(const std::string& scoresName);

private:
    QComboBox* layer_;
    QComboBox* head_;
    QSpinBox* sample_;
    QComboBox* colourScale_;
    QLabel* info_;
    FlowLayout* controls_;
    std::vector<QWidget*> extra_;
};

}  // namespace nnwb
