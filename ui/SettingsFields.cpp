#include "ui/SettingsFields.h"

#include <algorithm>
#include <climits>
#include <cmath>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QDoubleValidator>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStringList>

#include "app/core/QtText.h"

namespace nnwb {

namespace {

using K = SettingSpec::Kind;

bool isSpin(const SettingSpec& s) {
    return s.kind == K::Real && (s.decimals > 0 || s.step > 0);
}

QWidget* numberEdit(const SettingSpec& s, QWidget* parent) {
    auto* e = new QLineEdit(parent);
    auto* v = new QDoubleValidator(s.min, s.max, 12, e);
    v->setNotation(QDoubleValidator::ScientificNotation);
    v->setLocale(QLocale::c());
    e->setValidator(v);
    return e;
}

QWidget* intBox(const SettingSpec& s, QWidget* parent) {
    auto* box = new QSpinBox(parent);
    box->setRange(int(std::max<double>(s.min, INT_MIN)), int(std::min<double>(s.max, INT_MAX)));
    if (!s.unit.empty()) box->setSuffix(QLatin1Char(' ') + q(s.unit));
    box->setKeyboardTracking(false);
    return box;
}

QWidget* realBox(const SettingSpec& s, QWidget* parent) {
    auto* box = new QDoubleSpinBox(parent);
    box->setDecimals(s.decimals);
    box->setRange(s.min * s.formScale, s.max * s.formScale);
    box->setSingleStep(s.step > 0 ? s.step : std::pow(10.0, -s.decimals));
    if (!s.unit.empty()) box->setSuffix(QLatin1Char(' ') + q(s.unit));
    box->setKeyboardTracking(false);
    return box;
}

QWidget* choiceBox(const SettingSpec& s, QWidget* parent) {
    auto* box = new QComboBox(parent);
    for (size_t i = 0; i < s.choices.size(); ++i)
        box->addItem(q(i < s.choiceLabels.size() ? s.choiceLabels[i] : s.choices[i]),
                     q(s.choices[i]));
    return box;
}

// The numbers of "1, 2.5, 2.5"; empty when the text is empty or holds a non-number.
nlohmann::json numberList(const QString& text) {
    nlohmann::json list = nlohmann::json::array();
    for (const QString& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        double v = 0;
        if (!parseSettingNumber(part.trimmed().toStdString(), v)) return nlohmann::json::array();
        list.push_back(v);
    }
    return list;
}

}  // namespace

struct SettingsFields::Field {
    const SettingSpec* spec = nullptr;
    QWidget* widget = nullptr;
    Custom custom;
};

SettingsFields::SettingsFields(std::vector<SettingSpec> specs, QObject* parent,
                               CustomFactory custom)
    : QObject(parent), specs_(std::move(specs)), custom_(std::move(custom)) {}

SettingsFields::~SettingsFields() = default;

std::vector<std::string> SettingsFields::groups() const {
    std::vector<std::string> out;
    for (const SettingSpec& s : specs_)
        if (std::find(out.begin(), out.end(), s.group) == out.end()) out.push_back(s.group);
    return out;
}

QWidget* SettingsFields::makeWidget(const SettingSpec& s, QWidget* parent, Field& f) {
    if (custom_) f.custom = custom_(s, parent);
    if (f.custom.widget) {
        f.custom.connectEdits([this] { Q_EMIT edited(); });
        return f.custom.widget;
    }
    QWidget* w = nullptr;
    switch (s.kind) {
        case K::Int:
            w = intBox(s, parent);
            connect(static_cast<QSpinBox*>(w), qOverload<int>(&QSpinBox::valueChanged), this,
                    &SettingsFields::edited);
            return w;
        case K::Real:
            if (!isSpin(s)) break;
            w = realBox(s, parent);
            connect(static_cast<QDoubleSpinBox*>(w),
                    qOverload<double>(&QDoubleSpinBox::valueChanged), this,
                    &SettingsFields::edited);
            return w;
        case K::Bool:
            w = new QCheckBox(q(s.label), parent);
            connect(static_cast<QCheckBox*>(w), &QCheckBox::toggled, this, &SettingsFields::edited);
            return w;
        case K::Choice:
            w = choiceBox(s, parent);
            connect(static_cast<QComboBox*>(w), qOverload<int>(&QComboBox::currentIndexChanged),
                    this, &SettingsFields::edited);
            return w;
        case K::Text:
        case K::RealList:
            break;
    }
    auto* edit =
        static_cast<QLineEdit*>(s.kind == K::Real ? numberEdit(s, parent) : new QLineEdit(parent));
    if (s.kind == K::RealList) edit->setPlaceholderText(QStringLiteral("1, 2.5, 2.5"));
    connect(edit, &QLineEdit::editingFinished, this, &SettingsFields::edited);
    return edit;
}

void SettingsFields::addRows(const std::string& group, QFormLayout* form, QWidget* parent) {
    for (const SettingSpec& s : specs_) {
        if (s.group != group) continue;
        Field f;
        f.spec = &s;
        f.widget = makeWidget(s, parent, f);
        f.widget->setObjectName(q(s.name));
        f.widget->setToolTip(q(s.help));
        if (s.kind == K::Bool) {
            form->addRow(QString(), f.widget);
        } else {
            auto* label = new QLabel(q(s.label) + QLatin1Char(':'), parent);
            label->setToolTip(q(s.help));
            label->setBuddy(f.widget);
            form->addRow(label, f.widget);
        }
        fields_.push_back(std::move(f));
    }
}

void SettingsFields::showValue(const Field& f, const nlohmann::json& v) const {
    const SettingSpec& s = *f.spec;
    const QSignalBlocker block(f.widget);
    if (f.custom.widget) {
        f.custom.show(v);
    } else if (auto* box = qobject_cast<QSpinBox*>(f.widget)) {
        box->setValue(v.is_number() ? int(std::min(v.get<double>(), double(INT_MAX))) : 0);
    } else if (auto* real = qobject_cast<QDoubleSpinBox*>(f.widget)) {
        real->setValue(v.is_number() ? v.get<double>() * s.formScale : s.min);
    } else if (auto* check = qobject_cast<QCheckBox*>(f.widget)) {
        check->setChecked(v.is_boolean() && v.get<bool>());
    } else if (auto* combo = qobject_cast<QComboBox*>(f.widget)) {
        combo->setCurrentIndex(
            std::max(0, combo->findData(v.is_string() ? q(v.get<std::string>()) : QString())));
    } else if (auto* edit = qobject_cast<QLineEdit*>(f.widget)) {
        const QLocale c = QLocale::c();
        QStringList items;
        if (v.is_number()) items << c.toString(v.get<double>(), 'g', 6);
        if (v.is_string()) items << q(v.get<std::string>());
        if (v.is_array())
            for (const auto& x : v) items << c.toString(x.get<double>(), 'g', 6);
        edit->setText(items.join(QStringLiteral(", ")));
    }
}

void SettingsFields::show(const nlohmann::json& section) {
    for (const Field& f : fields_) {
        const nlohmann::json* v = findSetting(section, *f.spec, "");
        showValue(f, v ? *v : f.spec->defaultValue);
        f.widget->setEnabled(settingApplies(*f.spec, section, specs_));
    }
}

nlohmann::json SettingsFields::valueOf(const Field& f) const {
    const SettingSpec& s = *f.spec;
    if (f.custom.widget) return f.custom.value();
    if (auto* box = qobject_cast<QSpinBox*>(f.widget)) return box->value();
    if (auto* real = qobject_cast<QDoubleSpinBox*>(f.widget)) return real->value() / s.formScale;
    if (auto* check = qobject_cast<QCheckBox*>(f.widget)) return check->isChecked();
    if (auto* combo = qobject_cast<QComboBox*>(f.widget))
        return combo->currentData().toString().toStdString();
    const QString text = static_cast<QLineEdit*>(f.widget)->text();
    if (s.kind == K::Text) return text.toStdString();
    if (s.kind == K::RealList) {
        nlohmann::json list = numberList(text);
        return list.empty() ? nlohmann::json() : list;
    }
    double v = 0;
    return parseSettingNumber(text.trimmed().toStdString(), v) ? nlohmann::json(v)
                                                               : nlohmann::json();
}

nlohmann::json SettingsFields::read(nlohmann::json section,
                                    const std::vector<std::string>& groups) const {
    for (const Field& f : fields_) {
        if (!groups.empty() &&
            std::find(groups.begin(), groups.end(), f.spec->group) == groups.end())
            continue;
        nlohmann::json v = valueOf(f);
        if (v.is_null()) continue;
        try {
            f.spec->check("", v);
        } catch (const std::invalid_argument&) {
            continue;  // the validator let through a value the setting refuses: keep the old
        }
        putSetting(section, *f.spec, std::move(v));
    }
    return section;
}

QWidget* SettingsFields::field(const std::string& name) const {
    for (const Field& f : fields_)
        if (f.spec->name == name) return f.widget;
    return nullptr;
}

}  // namespace nnwb
