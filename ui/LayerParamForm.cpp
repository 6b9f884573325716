#include "ui/LayerParamForm.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include "app/core/LayerStackModel.h"
#include "app/core/QtText.h"
#include "model/layers/LayerRegistry.h"

namespace nnwb {

LayerParamForm::LayerParamForm(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    title_ = new QLabel(this);
    QFont f = title_->font();
    f.setBold(true);
    title_->setFont(f);
    description_ = new QLabel(this);
    description_->setWordWrap(true);
    description_->setStyleSheet(QStringLiteral("color: palette(mid);"));
    fields_ = new QWidget(this);
    form_ = new QFormLayout(fields_);
    form_->setContentsMargins(0, 4, 0, 0);
    form_->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form_->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
    layout->addWidget(title_);
    layout->addWidget(description_);
    layout->addWidget(fields_);
    layout->addStretch(1);
    setLayer(-1, {});
}

void LayerParamForm::setLayer(int index, const nlohmann::json& layer) {
    const std::string type = layer.is_object() ? layer.value("type", std::string()) : std::string();
    if (index != index_ || type != type_) {
        index_ = index;
        type_ = type;
        rebuild(layer);
    } else {
        updateValues(layer);
    }
}

void LayerParamForm::rebuild(const nlohmann::json& layer) {
    while (form_->rowCount() > 0) form_->removeRow(0);
    if (index_ < 0) {
        title_->setText(tr("No layer selected"));
        description_->setText(tr("Select a layer in the stack to edit its parameters."));
        return;
    }
    const LayerTypeInfo* info = findLayerType(type_);
    title_->setText(tr("Layer %1 · %2").arg(index_ + 1).arg(LayerStackModel::typeLabel(type_)));
    if (!info) {
        description_->setText(tr("Unknown layer type '%1'.").arg(q(type_)));
        return;
    }
    description_->setText(q(info->description));
    for (const LayerParamSpec& spec : info->params) {
        QWidget* w = editorFor(spec);
        const std::string key = spec.key;
        w->setObjectName(q("param:" + key));
        w->setToolTip(q(spec.help));
        form_->addRow(q(spec.label) + QLatin1Char(':'), w);
    }
    updateValues(layer);
}

QWidget* LayerParamForm::editorFor(const LayerParamSpec& spec) {
    const std::string key = spec.key;
    QWidget* w = nullptr;
    switch (spec.kind) {
        case LayerParamSpec::Kind::Int: {
            auto* box = new QSpinBox(fields_);
            box->setRange(spec.min, spec.max);
            box->setKeyboardTracking(false);
            box->setAccelerated(true);
            connect(box, qOverload<int>(&QSpinBox::valueChanged), this,
                    [this, key](int v) { Q_EMIT parameterEdited(index_, key, v); });
            w = box;
            break;
        }
        case LayerParamSpec::Kind::Bool: {
            auto* box = new QCheckBox(fields_);
            connect(box, &QCheckBox::toggled, this,
                    [this, key](bool v) { Q_EMIT parameterEdited(index_, key, v); });
            w = box;
            break;
        }
        case LayerParamSpec::Kind::Choice: {
            auto* box = new QComboBox(fields_);
            for (const auto& c : spec.choices) box->addItem(q(c));
            connect(box, &QComboBox::currentTextChanged, this, [this, key](const QString& v) {
                Q_EMIT parameterEdited(index_, key, v.toStdString());
            });
            w = box;
            break;
        }
        case LayerParamSpec::Kind::Real: {
            auto* box = new QDoubleSpinBox(fields_);
            box->setDecimals(3);
            // maxReal is excluded: the largest value the box offers is one step below it
            box->setRange(spec.minReal, spec.maxReal - 0.001);
            box->setSingleStep(spec.step);
            box->setKeyboardTracking(false);
            connect(box, qOverload<double>(&QDoubleSpinBox::valueChanged), this,
                    [this, key](double v) { Q_EMIT parameterEdited(index_, key, v); });
            w = box;
            break;
        }
        default: {  // a kind this GUI does not know yet: edit the raw JSON value
            auto* edit = new QLineEdit(fields_);
            connect(edit, &QLineEdit::editingFinished, this, [this, key, edit] {
                try {
                    Q_EMIT parameterEdited(index_, key,
                                           nlohmann::json::parse(edit->text().toStdString()));
                } catch (const std::exception&) {
                    edit->setStyleSheet(QStringLiteral("color: #c0392b;"));
                }
            });
            w = edit;
            break;
        }
    }
    return w;
}

void LayerParamForm::updateValues(const nlohmann::json& layer) {
    const LayerTypeInfo* info = findLayerType(type_);
    if (!info) return;
    for (const LayerParamSpec& spec : info->params) {
        auto* w = fields_->findChild<QWidget*>(q("param:" + spec.key));
        if (!w) continue;
        const nlohmann::json v = layer.contains(spec.key) ? layer[spec.key] : spec.defaultValue;
        const QSignalBlocker block(w);
        if (auto* box = qobject_cast<QSpinBox*>(w)) {
            box->setValue(v.is_number_integer() ? v.get<int>() : spec.min);
        } else if (auto* real = qobject_cast<QDoubleSpinBox*>(w)) {
            real->setValue(v.is_number() ? v.get<double>() : spec.minReal);
        } else if (auto* check = qobject_cast<QCheckBox*>(w)) {
            check->setChecked(v.is_boolean() && v.get<bool>());
        } else if (auto* combo = qobject_cast<QComboBox*>(w)) {
            combo->setCurrentText(v.is_string() ? q(v.get<std::string>()) : QString());
        } else if (auto* edit = qobject_cast<QLineEdit*>(w)) {
            edit->setText(q(v.dump()));
            edit->setStyleSheet({});
        }
    }
}

}  // namespace nnwb
