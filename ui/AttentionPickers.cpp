#include "ui/AttentionPickers.h"

#include <QComboBox>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

#include "ui/FlowLayout.h"

namespace nnwb {

AttentionPickers::AttentionPickers(const QString& title, const QString& prefix, QWidget* parent)
    : QWidget(parent) {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->setSpacing(2);
    // The pickers wrap onto a second line in a narrow pane: on one line they made the
    // window's minimum width 1535 px once a run had shown them (issue 24).
    auto* controls = controls_ = new FlowLayout(nullptr, 4);
    controls->setContentsMargins(0, 0, 0, 0);
    outer->addLayout(controls);
    auto* titleLabel = new QLabel(title, this);
    QFont b = titleLabel->font();
    b.setBold(true);
    titleLabel->setFont(b);
    layer_ = new QComboBox(this);
    layer_->setObjectName(prefix + QStringLiteral("Layer"));
    layer_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    head_ = new QComboBox(this);
    head_->setObjectName(prefix + QStringLiteral("Head"));
    sample_ = new QSpinBox(this);
    sample_->setObjectName(prefix + QStringLiteral("Sample"));
    sample_->setRange(0, 0);
    sample_->setKeyboardTracking(false);
    sample_->setPrefix(tr("sample "));
    sample_->setToolTip(tr("Validation sample whose Score matrices are shown"));
    colourScale_ = new QComboBox(this);
    colourScale_->setObjectName(prefix + QStringLiteral("ColourScale"));
    colourScale_->addItem(tr("colour: matrix"));
    colourScale_->addItem(tr("colour: each row"));
    colourScale_->setToolTip(
        tr("Colour scale of the Score matrices: one scale for the whole matrix, or each row "
           "relative to its largest score (a causal mask's first row is always 1 and would "
           "otherwise wash out the rest)"));
    info_ = new QLabel(this);
    info_->setObjectName(prefix + QStringLiteral("Info"));
    info_->setStyleSheet(QStringLiteral("color: palette(mid);"));
    // The info line (epoch, sample's bar, true and predicted class) has a line of its own
    // below the pickers and wraps rather than widening the pane.
    info_->setWordWrap(true);
    titleLabel->setContentsMargins(0, 0, 4, 0);
    controls->addWidget(titleLabel);
    controls->addWidget(layer_);
    controls->addWidget(head_);
    controls->addWidget(sample_);
    controls->addWidget(colourScale_);
    outer->addWidget(info_);
}

void AttentionPickers::setPickersVisible(bool visible) {
    for (QWidget* w : {static_cast<QWidget*>(layer_), static_cast<QWidget*>(head_),
                       static_cast<QWidget*>(sample_), static_cast<QWidget*>(colourScale_)})
        w->setVisible(visible);
    for (QWidget* w : extra_) w->setVisible(visible);
}

void AttentionPickers::addControl(QWidget* control) {
    controls_->insertWidget(controls_->indexOf(colourScale_) + 1, control);
    control->setVisible(colourScale_->isVisibleTo(this));
    extra_.push_back(control);
}

bool AttentionPickers::rowNormalized() const {
    return colourScale_->currentIndex() == 1;
}

QString AttentionPickers::layerLabel(const std::string& scoresName) {
    const QStringList parts = QString::fromStdString(scoresName).split(QLatin1Char('.'));
    QStringList out;
    for (int i = 0; i + 1 < parts.size(); i += 2) {
        bool ok = false;
        const int n = parts[i + 1].toInt(&ok);
        if (!ok) return QString::fromStdString(scoresName);
        out << QStringLiteral("%1 %2")
                   .arg(parts[i] == QLatin1String("layers") ? tr("layer") : parts[i])
                   .arg(n + 1);
    }
    return out.isEmpty() || parts.size() % 2 ? QString::fromStdString(scoresName)
                                             : out.join(QStringLiteral(" · "));
}

}  // namespace nnwb
