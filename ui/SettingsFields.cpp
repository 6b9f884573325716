#include "ui/SettingsFields.h"

#include <algorithm>
#include <climits>
#include <cmath>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QDoubleValidator>
#include <QEvent>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStringList>
#include <QToolTip>
#include <QVariant>

#include "app/core/QtText.h"

namespace nnwb {

namespace {

using K = SettingSpec::Kind;

bool isSpin(const SettingSpec& s) {
    return s.kind == K::Real && (s.decimals > 0 || s.step > 0);
}

QWidget* numberEdit(const SettingSpec& s, QWidget* parent) {
    auto* e = new QLineEdit(parent);
    // As many decimals as a value has (QDoubleValidator's default 1000): with 12, a value given
    // in full (0.0012261443415355312) was "intermediate" and rounded when the field was left.
    auto* v = new QDoubleValidator(s.min, s.max, 1000, e);
    v->setNotation(QDoubleValidator::ScientificNotation);
    v->setLocale(QLocale::c());
    e->setValidator(v);
    return e;
}

QWidget* intBox(const SettingSpec& s, QWidget* parent) {
    auto* box = new QSpinBox(parent);
    box->setRange(int(std::max<double>(s.min, INT_MIN)), int(std::min<double>(s.max, INT_MAX)));
    if (!s.unit.empty()) box->setSuffix(QLatin1Char(' ') + q(s.unit));
    if (!s.minimumText.empty()) box->setSpecialValueText(q(s.minimumText));
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

// A spin or combo box the wheel changes only once it has the focus (a click or Tab gives it).
void wheelOnlyWithFocus(QWidget* w, QObject* filter) {
    w->setFocusPolicy(Qt::StrongFocus);
    w->installEventFilter(filter);
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
    nlohmann::json shown;  // the value show() gave the field
    QVariant shownState;   // the widget's state right after (fieldState)
};

namespace {

// What a field widget holds, to tell whether the user changed it since show().
QVariant fieldState(const QWidget* w) {
    if (auto* box = qobject_cast<const QSpinBox*>(w)) return box->value();
    if (auto* real = qobject_cast<const QDoubleSpinBox*>(w)) return real->value();
    if (auto* check = qobject_cast<const QCheckBox*>(w)) return check->isChecked();
    if (auto* combo = qobject_cast<const QComboBox*>(w)) return combo->currentIndex();
    if (auto* edit = qobject_cast<const QLineEdit*>(w)) return edit->text();
    return {};
}

// A number shown in full: the fewest significant digits (6 at least, as "0.0001" and "1e-08"
// read) that give back the same double.
QString numberText(double v) {
    const QLocale c = QLocale::c();
    for (int digits = 6; digits < 17; ++digits) {
        const QString text = c.toString(v, 'g', digits);
        bool ok = false;
        if (c.toDouble(text, &ok) == v && ok) return text;
    }
    return c.toString(v, 'g', 17);
}

}  // namespace

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
            wheelOnlyWithFocus(w, this);
            connect(static_cast<QSpinBox*>(w), qOverload<int>(&QSpinBox::valueChanged), this,
                    &SettingsFields::edited);
            return w;
        case K::Real:
            if (!isSpin(s)) break;
            w = realBox(s, parent);
            wheelOnlyWithFocus(w, this);
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
            wheelOnlyWithFocus(w, this);
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
    // Typed text that is no valid value is marked at once, with the range.
    connect(edit, &QLineEdit::textEdited, this, [this, edit] {
        if (Field* f = fieldOf(edit)) markInvalid(*f, textProblem(*f));
    });
    edit->installEventFilter(this);
    return edit;
}

QString SettingsFields::textProblem(const Field& f) const {
    const SettingSpec& s = *f.spec;
    auto* edit = qobject_cast<QLineEdit*>(f.widget);
    if (!edit || f.custom.widget || s.kind == K::Text) return {};
    const QString text = edit->text().trimmed();
    if (text.isEmpty() && s.kind == K::RealList) return {};  // an empty list is a value
    nlohmann::json v;
    if (s.kind == K::RealList) {
        v = numberList(text);
        if (v.empty()) return tr("Not a list of numbers: %1").arg(q(s.rangeText()));
    } else {
        double x = 0;
        if (!parseSettingNumber(text.toStdString(), x))
            return tr("Not a number: %1").arg(q(s.rangeText()));
        v = x;
    }
    try {
        s.check("", v);
    } catch (const std::invalid_argument& e) {
        return tr("Not a valid value (%1): %2").arg(q(s.rangeText()), q(e.what()));
    }
    return {};
}

void SettingsFields::markInvalid(Field& f, const QString& reason) {
    if (f.custom.widget || !qobject_cast<QLineEdit*>(f.widget)) return;
    const bool was = f.widget->property("invalidReason").toString().size() > 0;
    f.widget->setProperty("invalidReason", reason);
    f.widget->setStyleSheet(reason.isEmpty() ? QString()
                                             : QStringLiteral("QLineEdit { border: 2px solid "
                                                              "#c0392b; }"));
    const QString help = q(f.spec->help);
    f.widget->setToolTip(reason.isEmpty() ? help : reason + QStringLiteral("\n\n") + help);
    if (!reason.isEmpty() && !was && f.widget->hasFocus())
        QToolTip::showText(f.widget->mapToGlobal(QPoint(0, f.widget->height())), reason, f.widget);
}

SettingsFields::Field* SettingsFields::fieldOf(const QObject* widget) {
    for (Field& f : fields_)
        if (f.widget == widget) return &f;
    return nullptr;
}

QString SettingsFields::invalidReason(const std::string& name) const {
    const QWidget* w = field(name);
    return w ? w->property("invalidReason").toString() : QString();
}

bool SettingsFields::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::Wheel) {
        // Scrolling the pane over a field does not change it: only a focused field takes the
        // wheel; the event goes on to the scroll area.
        auto* w = qobject_cast<QWidget*>(watched);
        if (w && !w->hasFocus()) {
            event->ignore();
            return true;
        }
    } else if (event->type() == QEvent::FocusOut) {
        // Leaving a field with text that is no valid value: the value in use shows again.
        if (Field* f = fieldOf(watched); f && !textProblem(*f).isEmpty()) showValue(*f, f->shown);
    }
    return QObject::eventFilter(watched, event);
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

void SettingsFields::showValue(Field& f, const nlohmann::json& v) {
    const SettingSpec& s = *f.spec;
    const QSignalBlocker block(f.widget);
    f.shown = v;
    markInvalid(f, QString());
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
        QStringList items;
        if (v.is_number()) items << numberText(v.get<double>());
        if (v.is_string()) items << q(v.get<std::string>());
        if (v.is_array())
            for (const auto& x : v) items << numberText(x.get<double>());
        edit->setText(items.join(QStringLiteral(", ")));
    }
    f.shownState = fieldState(f.widget);
}

void SettingsFields::show(const nlohmann::json& section) {
    for (Field& f : fields_) {
        const nlohmann::json* v = findSetting(section, *f.spec, "");
        showValue(f, v ? *v : f.spec->defaultValue);
        f.widget->setEnabled(settingApplies(*f.spec, section, specs_));
    }
}

nlohmann::json SettingsFields::valueOf(const Field& f) const {
    const SettingSpec& s = *f.spec;
    if (f.custom.widget) return f.custom.value();
    // Untouched since show(): the exact value it was given (a spin box or the text may round).
    if (fieldState(f.widget) == f.shownState) return nlohmann::json();
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
