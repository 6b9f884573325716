#include "ui/AttentionView.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStackedWidget>
#include <QVBoxLayout>

#include "model/FigureText.h"
#include "model/data/DateTime.h"
#include "ui/AttentionGrid.h"
#include "ui/AttentionHeatmap.h"
#include "ui/AttentionPickers.h"
#include "ui/PaneScrollArea.h"

namespace nnwb {

namespace {
// " · true buy · predicted none (none 0.61, buy 0.22, sell 0.17)" for a 3-class sample.
QString sampleClasses(const AttentionSnapshot& s) {
    if (s.outputs.size() != 3 || s.target.size() != 3) return {};
    const QString names[3] = {AttentionView::tr("none"), AttentionView::tr("buy"),
                              AttentionView::tr("sell")};
    const bool buy = s.target[1] > 0.5f, sell = s.target[2] > 0.5f;
    const QString actual = buy && sell ? AttentionView::tr("buy and sell")
                           : buy       ? names[1]
                           : sell      ? names[2]
                                       : names[0];
    int pred = 0;  // argmax, ties to the first, as the metrics count it
    for (int k = 1; k < 3; ++k)
        if (s.outputs[size_t(k)] > s.outputs[size_t(pred)]) pred = k;
    return AttentionView::tr(" · true %1 · predicted %2 (none %3, buy %4, sell %5)")
        .arg(actual, names[pred])
        .arg(s.outputs[0], 0, 'f', 2)
        .arg(s.outputs[1], 0, 'f', 2)
        .arg(s.outputs[2], 0, 'f', 2);
}
}  // namespace

AttentionView::AttentionView(QWidget* parent) : QWidget(parent) {
    // The pickers and the info line in a column beside the heatmap, not above it: above, they
    // took three to five lines of the pane and left the heatmap 113 px of plot at 1280x720
    // (the map is about square, so the pane's width has room to spare). The column scrolls
    // when the pane is shorter than its lines (1024x600).
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* column = new QWidget(this);
    auto* columnLayout = new QVBoxLayout(column);
    columnLayout->setContentsMargins(0, 0, 4, 0);
    pickers_ = new AttentionPickers(tr("Attention"), QStringLiteral("attention"), column);
    layer_ = pickers_->layer();
    head_ = pickers_->head();
    sample_ = pickers_->sample();
    info_ = pickers_->info();
    weights_ = new QComboBox(column);
    weights_->setObjectName(QStringLiteral("attentionWeights"));
    weights_->addItem(tr("latest epoch"));
    weights_->addItem(tr("best epoch"));
    setModelNote({});  // the run's own: the picker on, its tooltip
    pickers_->addControl(weights_);
    columnLayout->addWidget(pickers_);
    columnLayout->addStretch(1);
    auto* side = new PaneScrollArea(column, this);
    side->setObjectName(QStringLiteral("attentionSide"));
    // Two fifths of the pane, between 20 and 36 characters: two pickers a line (the layer's
    // and the head's, ...) and the info line in a few lines where the pane is wide (1280 px
    // screens), one a line where it is narrow. Never wider than 20 characters at least, so that
    // the pane does not widen the window.
    const int c = fontMetrics().averageCharWidth(),
              bar = side->verticalScrollBar()->sizeHint().width();
    side->setMinimumWidth(20 * c + bar);
    side->setMaximumWidth(36 * c + bar);
    layout->addWidget(side, 2);

    pages_ = new QStackedWidget(this);
    placeholder_ = new QLabel(pages_);
    placeholder_->setObjectName(QStringLiteral("attentionPlaceholder"));
    placeholder_->setAlignment(Qt::AlignCenter);
    placeholder_->setWordWrap(true);
    placeholder_->setStyleSheet(QStringLiteral("color: palette(mid);"));
    heatmap_ = new AttentionHeatmap(pages_);
    heatmap_->setObjectName(QStringLiteral("attentionHeatmap"));
    heatmap_->removeTitle();  // the pickers beside it name layer, head and sample
    grid_ = new AttentionGrid(pages_);
    grid_->setObjectName(QStringLiteral("attentionGrid"));
    pages_->addWidget(placeholder_);
    pages_->addWidget(heatmap_);
    pages_->addWidget(grid_);
    layout->addWidget(pages_, 3);

    connect(layer_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] {
        fillHeads();
        showCurrent();
    });
    connect(head_, qOverload<int>(&QComboBox::currentIndexChanged), this,
            [this] { showCurrent(); });
    connect(sample_, qOverload<int>(&QSpinBox::valueChanged), this,
            [this](int v) { Q_EMIT sampleRequested(v); });
    connect(weights_, qOverload<int>(&QComboBox::currentIndexChanged), this,
            [this](int i) { Q_EMIT bestWeightsRequested(i == 1); });
    connect(pickers_->colourScale(), qOverload<int>(&QComboBox::currentIndexChanged), this,
            [this] { showCurrent(); });
    clear(tr("Train a stack with an attention layer to see its Score matrices here."));
}

void AttentionView::showSample(int sample) {
    if (sample_->maximum() < sample) sample_->setMaximum(sample);
    if (sample_->value() == sample)
        Q_EMIT sampleRequested(sample);
    else
        sample_->setValue(sample);  // emits sampleRequested
}

void AttentionView::clear(const QString& message) {
    snapshot_.reset();
    {
        const QSignalBlocker b1(layer_), b2(head_);
        layer_->clear();
        head_->clear();
    }
    pickers_->setPickersVisible(false);
    info_->clear();
    heatmap_->clearScores();
    grid_->clearScores();
    placeholder_->setText(message);
    pages_->setCurrentWidget(placeholder_);
}

void AttentionView::setModelNote(const QString& note) {
    modelNote_ = note;
    // A member's heatmaps are its kept epoch's: no latest or best epoch to pick.
    weights_->setEnabled(note.isEmpty());
    weights_->setToolTip(
        note.isEmpty() ? tr("Whose Score matrices are shown: the latest epoch's weights or the "
                            "best epoch's (on the monitored metric)")
                       : tr("The heatmaps are the ensemble's best member's at its kept epoch (%1): "
                            "there is no latest or best epoch to pick. Train a single model to "
                            "pick again.")
                             .arg(note));
}

void AttentionView::setSnapshot(const AttentionSnapshotPtr& snap) {
    if (!snap || snap->layers.empty()) return;
    const QString keepLayer = layer_->currentText();
    const int keepHead = head_->currentIndex();
    snapshot_ = snap;
    {
        const QSignalBlocker b1(layer_), b2(sample_);
        layer_->clear();
        for (const auto& s : snap->layers) layer_->addItem(AttentionPickers::layerLabel(s.name));
        const int i = layer_->findText(keepLayer);
        layer_->setCurrentIndex(i >= 0 ? i : 0);
        sample_->setRange(0, std::max<int>(0, static_cast<int>(snap->validationSamples) - 1));
        sample_->setValue(snap->sample);
    }
    pickers_->setPickersVisible(true);
    fillHeads();
    if (keepHead >= 0 && keepHead < head_->count()) {
        const QSignalBlocker b(head_);
        head_->setCurrentIndex(keepHead);
    }
    QString info = modelNote_.isEmpty() ? QString() : modelNote_ + tr(", kept ");
    info += (snap->bestEpoch ? tr("best epoch %1") : tr("epoch %1")).arg(snap->epoch) +
            tr(" · %1 validation samples")
                .arg(QString::fromStdString(groupedCount(int64_t(snap->validationSamples))));
    if (snap->sampleTime != 0)
        info += tr(" · sample %1: bar %2")
                    .arg(snap->sample)
                    .arg(QString::fromStdString(formatBarTime(snap->sampleTime)));
    else
        info += tr(" · sample %1").arg(snap->sample);
    info += sampleClasses(*snap);
    info_->setText(info);
    showCurrent();
}

void AttentionView::fillHeads() {
    const QSignalBlocker b(head_);
    const int keep = head_->currentIndex();
    head_->clear();
    if (!snapshot_ || layer_->currentIndex() < 0) return;
    const auto& s = snapshot_->layers[static_cast<size_t>(layer_->currentIndex())];
    for (int h = 0; h < s.heads; ++h) head_->addItem(tr("head %1").arg(h + 1));
    if (s.heads > 1) head_->addItem(tr("all heads"));
    head_->setCurrentIndex(keep >= 0 && keep < head_->count() ? keep : 0);
}

void AttentionView::showCurrent() {
    if (!snapshot_ || layer_->currentIndex() < 0) return;
    const auto& s = snapshot_->layers[static_cast<size_t>(layer_->currentIndex())];
    const int head = head_->currentIndex();
    HeatmapStyle style;
    style.rowNormalized = pickers_->rowNormalized();
    style.elementsAreBars = snapshot_->windowBars > 0 && s.units == snapshot_->windowBars;
    heatmap_->setStyle(style);
    if (s.heads > 1 && head == s.heads) {
        grid_->setScores(s, style);
        pages_->setCurrentWidget(grid_);
    } else {
        heatmap_->setScores(s, std::max(0, head),
                            tr("%1 · head %2 · sample %3")
                                .arg(AttentionPickers::layerLabel(s.name))
                                .arg(std::max(0, head) + 1)
                                .arg(snapshot_->sample));
        pages_->setCurrentWidget(heatmap_);
    }
}

}  // namespace nnwb
