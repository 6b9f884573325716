#include "ui/FieldHelp.h"

#include <QAbstractButton>
#include <QCheckBox>
#include <QFormLayout>
#include <QHash>
#include <QLabel>
#include <QPushButton>
#include <QWidget>

namespace nnwb {

namespace {

const QHash<QString, QString>& helpByLabel() {
    static const QHash<QString, QString> h = {
        // Data pane
        {"Source",
         "Where the samples come from: a price file (bars → features → fractal "
         "labels) or a synthetic teacher task for quick tests of a stack"},
        {"Window",
         "Bars per sample (the sequence length, units): the target is the fractal "
         "type of the last bar, known when the next bar closes"},
        {"Validation",
         "Share of the samples, the newest ones, kept for validation (%); no "
         "window spans both parts"},
        {"Normalize",
         "z-score: each feature scaled by the mean and deviation of the training "
         "part; none: raw values, as the MQL5 original"},
        {"Fractal rule",
         "3 bars: a high (low) above (below) both neighbours; 5 bars: Williams' "
         "rule, two bars on each side"},
        {"Samples", "Number of synthetic samples (count)"},
        {"Units (sequence)", "Elements per synthetic sample (sequence length, count)"},
        {"Window (values)", "Values per element of a synthetic sample (count)"},
        {"add sinusoidal positional encoding",
         "Adds sin/cos of the bar's position in the window to its features (dimensionless)"},
        // Training pane
        {"Method", "Optimizer: Adam (bias-corrected moments) or SGD with momentum"},
        {"Learning rate", "Step size of each update (dimensionless, e.g. 0.001)"},
        {"Momentum", "SGD: share of the previous update kept in the next one (0–1)"},
        {"β1", "Adam: decay of the mean of the gradients (0–1, typically 0.9)"},
        {"β2", "Adam: decay of the mean of the squared gradients (0–1, typically 0.999)"},
        {"ε", "Adam: added to the denominator for stability (dimensionless, e.g. 1e-8)"},
        {"Weight decay", "L2 penalty on the weights per step (dimensionless, 0 = none)"},
        {"Device", "Where the network trains: the native CPU backend or an OpenCL device"},
        {"Loss", "Mean squared error on the outputs (MQL5) or softmax cross-entropy"},
        {"Batch size",
         "Samples per weight update (count); 1 = update after every sample, as "
         "the MQL5 expert"},
        {"Epochs", "Passes over the training samples (count)"},
        {"Seed",
         "Seed of the weight initialization and the shuffling (same seed, data and "
         "device → the same numbers)"},
        {"shuffle samples every epoch",
         "Visit the training samples in a new random order each epoch"},
    };
    return h;
}

QString key(QString text) {
    text.remove(QLatin1Char('&'));
    if (text.endsWith(QLatin1Char(':'))) text.chop(1);
    return text.trimmed();
}

}  // namespace

int applyFieldHelp(QWidget* pane) {
    int set = 0;
    auto apply = [&](QWidget* w, const QString& help) {
        if (!w || help.isEmpty() || !w->toolTip().isEmpty()) return;
        w->setToolTip(help);
        ++set;
    };
    for (QFormLayout* form : pane->findChildren<QFormLayout*>()) {
        for (int r = 0; r < form->rowCount(); ++r) {
            QLayoutItem* labelItem = form->itemAt(r, QFormLayout::LabelRole);
            QLayoutItem* fieldItem = form->itemAt(r, QFormLayout::FieldRole);
            if (!fieldItem || !fieldItem->widget()) continue;
            auto* label = labelItem ? qobject_cast<QLabel*>(labelItem->widget()) : nullptr;
            const QString help = helpByLabel().value(label ? key(label->text()) : QString());
            apply(fieldItem->widget(), help);
            if (label && !help.isEmpty() && label->toolTip().isEmpty()) label->setToolTip(help);
        }
    }
    for (QAbstractButton* b : pane->findChildren<QAbstractButton*>())
        apply(b, helpByLabel().value(key(b->text())));
    return set;
}

}  // namespace nnwb
