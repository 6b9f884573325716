#include "ui/ComparisonAttention.h"

#include <algorithm>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStackedWidget>
#include <QVBoxLayout>

#include "ui/AttentionHeatmap.h"
#include "ui/AttentionPickers.h"

namespace nnwb {

namespace {
// Layers are matched by position among the attention layers (block 3 of a 5-block stack
// against block 3 of a 12-block one), so that stacks of different kinds still line up.
const AttentionScores* layerAt(const AttentionSnapshotPtr& snap, int index) {
    if (!snap || index < 0 || index >= static_cast<int>(snap->layers.size())) return nullptr;
    return &snap->layers[size_t(index)];
}
}  // namespace

ComparisonAttention::ComparisonAttention(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    pickers_ =
        new AttentionPickers(tr("Attention, side by side"), QStringLiteral("comparison"), this);
    layer_ = pickers_->layer();
    head_ = pickers_->head();
    sample_ = pickers_->sample();
    sample_->setToolTip(tr("Validation sample whose Score matrices are shown for every run"));
    layout->addWidget(pickers_);
    row_ = new QWidget(this);
    auto* rowLayout = new QHBoxLayout(row_);
    rowLayout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(row_, 1);

    connect(layer_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] { showAll(); });
    connect(head_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] { showAll(); });
    connect(pickers_->colourScale(), qOverload<int>(&QComboBox::currentIndexChanged), this,
            [this] { showAll(); });
    connect(sample_, qOverload<int>(&QSpinBox::valueChanged), this,
            [this](int v) { Q_EMIT sampleRequested(v); });
}

void ComparisonAttention::setRuns(const QStringList& names, const std::vector<QColor>& colours) {
    for (Column& c : columns_) {
        delete c.title;
        delete c.pages;
        delete c.layout;  // also leaves the row's layout
    }
    columns_.clear();
    auto* rowLayout = static_cast<QHBoxLayout*>(row_->layout());
    for (int i = 0; i < names.size(); ++i) {
        Column c;
        c.title = new QLabel(names[i], row_);
        c.title->setStyleSheet(
            QStringLiteral("font-weight: bold; color: %1;").arg(colours.at(size_t(i)).name()));
        c.title->setAlignment(Qt::AlignCenter);
        c.pages = new QStackedWidget(row_);
        c.placeholder = new QLabel(c.pages);
        c.placeholder->setAlignment(Qt::AlignCenter);
        c.placeholder->setWordWrap(true);
        c.placeholder->setStyleSheet(QStringLiteral("color: palette(mid);"));
        c.heatmap = new AttentionHeatmap(c.pages);
        c.heatmap->setObjectName(QStringLiteral("comparisonHeatmap%1").arg(i));
        // Room for 150 px of matrix under its axes and labels (about 80 px); a shorter pane
        // scrolls (the Comparison tab's heatmaps live in a scroll area).
        c.heatmap->setMinimumHeight(232);
        c.pages->addWidget(c.placeholder);
        c.pages->addWidget(c.heatmap);
        c.layout = new QVBoxLayout;
        c.layout->addWidget(c.title);
        c.layout->addWidget(c.pages, 1);
        rowLayout->addLayout(c.layout, 1);
        columns_.push_back(c);
    }
    clearSnapshots();
}

void ComparisonAttention::clearSnapshots() {
    for (Column& c : columns_) c.snapshot.reset();
    refillPickers();
    showAll();
}

void ComparisonAttention::setSnapshot(int run, const AttentionSnapshotPtr& snapshot) {
    if (run < 0 || run >= static_cast<int>(columns_.size())) return;
    columns_[size_t(run)].snapshot = snapshot;
    refillPickers();
    showAll();
}

bool ComparisonAttention::showsHeatmap(int run) const {
    const Column& c = columns_.at(size_t(run));
    return c.pages->currentWidget() == c.heatmap;
}

void ComparisonAttention::refillPickers() {
    QStringList layers;  // by position; named after the first run that has the position
    int heads = 0;
    size_t samples = 0;
    for (const Column& c : columns_) {
        if (!c.snapshot) continue;
        samples = std::max(samples, c.snapshot->validationSamples);
        for (size_t i = 0; i < c.snapshot->layers.size(); ++i) {
            const AttentionScores& s = c.snapshot->layers[i];
            if (int(i) >= layers.size())
                layers << tr("%1: %2").arg(i + 1).arg(AttentionPickers::layerLabel(s.name));
            heads = std::max(heads, s.heads);
        }
    }
    const QSignalBlocker b1(layer_), b2(head_), b3(sample_);
    const int keepLayer = layer_->currentIndex();
    const int keepHead = head_->currentIndex();
    layer_->clear();
    layer_->addItems(layers);
    layer_->setCurrentIndex(keepLayer >= 0 && keepLayer < layers.size() ? keepLayer : 0);
    head_->clear();
    for (int h = 0; h < heads; ++h) head_->addItem(tr("head %1").arg(h + 1));
    head_->setCurrentIndex(keepHead >= 0 && keepHead < heads ? keepHead : 0);
    sample_->setRange(0, std::max<int>(0, static_cast<int>(samples) - 1));
    pickers_->setPickersVisible(!layers.isEmpty());
}

void ComparisonAttention::showAll() {
    const int layer = layer_->currentIndex();
    const int head = std::max(0, head_->currentIndex());
    for (Column& c : columns_) {
        const AttentionScores* s = layerAt(c.snapshot, layer);
        if (!c.snapshot) {
            c.placeholder->setText(
                tr("No Score matrices yet: they come after the first epoch "
                   "of a stack with an attention layer."));
        } else if (!s) {
            c.placeholder->setText(tr("This run has %n attention layer(s) only.", nullptr,
                                      static_cast<int>(c.snapshot->layers.size())));
        } else if (head >= s->heads) {
            c.placeholder->setText(tr("%1 of this run has %n head(s) only.", nullptr, s->heads)
                                       .arg(AttentionPickers::layerLabel(s->name)));
        } else {
            // The title stays short: the column names the run, the pickers the head and sample.
            HeatmapStyle style;
            style.rowNormalized = pickers_->rowNormalized();
            style.elementsAreBars =
                c.snapshot->windowBars > 0 && s->units == c.snapshot->windowBars;
            c.heatmap->setStyle(style);
            c.heatmap->setScores(*s, head,
                                 tr("%1 · epoch %2")
                                     .arg(AttentionPickers::layerLabel(s->name))
                                     .arg(c.snapshot->epoch));
            c.pages->setCurrentWidget(c.heatmap);
            continue;
        }
        c.pages->setCurrentWidget(c.placeholder);
    }
}

}  // namespace nnwb
