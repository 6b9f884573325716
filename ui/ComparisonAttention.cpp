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

namespace nnwb {

namespace {
const AttentionScores* findLayer(const AttentionSnapshotPtr& snap, const QString& name) {
    if (!snap) return nullptr;
    for (const AttentionScores& s : snap->layers)
        if (QString::fromStdString(s.name) == name) return &s;
    return nullptr;
}
}  // namespace

ComparisonAttention::ComparisonAttention(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* controls = new QHBoxLayout;
    auto* title = new QLabel(tr("Attention, side by side"), this);
    QFont b = title->font();
    b.setBold(true);
    title->setFont(b);
    layer_ = new QComboBox(this);
    layer_->setObjectName(QStringLiteral("comparisonLayer"));
    layer_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    head_ = new QComboBox(this);
    head_->setObjectName(QStringLiteral("comparisonHead"));
    sample_ = new QSpinBox(this);
    sample_->setObjectName(QStringLiteral("comparisonSample"));
    sample_->setRange(0, 0);
    sample_->setKeyboardTracking(false);
    sample_->setPrefix(tr("sample "));
    sample_->setToolTip(tr("Validation sample whose Score matrices are shown for every run"));
    controls->addWidget(title);
    controls->addSpacing(8);
    controls->addWidget(layer_);
    controls->addWidget(head_);
    controls->addWidget(sample_);
    controls->addStretch(1);
    layout->addLayout(controls);
    row_ = new QWidget(this);
    auto* rowLayout = new QHBoxLayout(row_);
    rowLayout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(row_, 1);

    connect(layer_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] { showAll(); });
    connect(head_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] { showAll(); });
    connect(sample_, qOverload<int>(&QSpinBox::valueChanged), this,
            [this](int v) { Q_EMIT sampleRequested(v); });
}

void ComparisonAttention::setRuns(const QStringList& names, const std::vector<QColor>& colours) {
    for (Column& c : columns_) {
        delete c.title;
        delete c.pages;
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
        c.pages->addWidget(c.placeholder);
        c.pages->addWidget(c.heatmap);
        auto* column = new QVBoxLayout;
        column->addWidget(c.title);
        column->addWidget(c.pages, 1);
        rowLayout->addLayout(column, 1);
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
    QStringList layers;
    int heads = 0;
    size_t samples = 0;
    for (const Column& c : columns_) {
        if (!c.snapshot) continue;
        samples = std::max(samples, c.snapshot->validationSamples);
        for (const AttentionScores& s : c.snapshot->layers) {
            const QString name = QString::fromStdString(s.name);
            if (!layers.contains(name)) layers << name;
            heads = std::max(heads, s.heads);
        }
    }
    const QSignalBlocker b1(layer_), b2(head_), b3(sample_);
    const QString keepLayer = layer_->currentText();
    const int keepHead = head_->currentIndex();
    layer_->clear();
    layer_->addItems(layers);
    const int li = layer_->findText(keepLayer);
    layer_->setCurrentIndex(li >= 0 ? li : 0);
    head_->clear();
    for (int h = 0; h < heads; ++h) head_->addItem(tr("head %1").arg(h + 1));
    head_->setCurrentIndex(keepHead >= 0 && keepHead < heads ? keepHead : 0);
    sample_->setRange(0, std::max<int>(0, static_cast<int>(samples) - 1));
    for (QWidget* w : {static_cast<QWidget*>(layer_), static_cast<QWidget*>(head_),
                       static_cast<QWidget*>(sample_)})
        w->setVisible(!layers.isEmpty());
}

void ComparisonAttention::showAll() {
    const QString layer = layer_->currentText();
    const int head = std::max(0, head_->currentIndex());
    for (Column& c : columns_) {
        const AttentionScores* s = findLayer(c.snapshot, layer);
        if (!c.snapshot) {
            c.placeholder->setText(
                tr("No Score matrices yet: they come after the first epoch "
                   "of a stack with an attention layer."));
        } else if (!s) {
            c.placeholder->setText(c.snapshot->layers.empty()
                                       ? tr("This run has no attention layer.")
                                       : tr("This run has no layer %1.").arg(layer));
        } else if (head >= s->heads) {
            c.placeholder->setText(tr("%1 of this run has no head %2.").arg(layer).arg(head + 1));
        } else {
            c.heatmap->setScores(*s, head,
                                 tr("%1 · head %2 · sample %3 · epoch %4")
                                     .arg(layer)
                                     .arg(head + 1)
                                     .arg(c.snapshot->sample)
                                     .arg(c.snapshot->epoch));
            c.pages->setCurrentWidget(c.heatmap);
            continue;
        }
        c.pages->setCurrentWidget(c.placeholder);
    }
}

}  // namespace nnwb
