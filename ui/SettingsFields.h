// Form fields generated from a settings table (model/SettingSpec.h; TrainingSettings.h,
// DataSettings.h): per entry a spin box (Int, Real with decimals or a step), a number field
// (other Real), a check box (Bool), a combo box (Choice), a text field (Text, a list of
// numbers), named by the entry's `name`, with its label, range, unit and help as tooltip.
// show() puts a JSON section's values in and enables each field by its entry's condition;
// read() writes the fields' values back into a section. A panel lays out the groups it wants
// (addRows) and handles edited(). A field keeps the exact value show() gave it until the user
// changes it (read() leaves the section's value for an untouched field); text that is not a
// valid value is marked invalid with the setting's range while typed and, on leaving the field,
// gives way to the value in use again; the mouse wheel changes a field only while it has the
// keyboard focus (else it scrolls the pane). GUI thread only.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <QObject>

#include <nlohmann/json.hpp>

#include "model/SettingSpec.h"

class QFormLayout;
class QWidget;

namespace nnwb {

class SettingsFields : public QObject {
    Q_OBJECT
public:
    // A field the panel builds itself for an entry (the device picker): its widget, how it
    // shows a value, the value it holds (null: keep the section's), and a call that connects
    // its edits to `edited`.
    struct Custom {
        QWidget* widget = nullptr;
        std::function<void(const nlohmann::json&)> show;
        std::function<nlohmann::json()> value;
        std::function<void(std::function<void()> edited)> connectEdits;
    };
    // Returns a Custom with a widget for the entries it builds, an empty one for the others.
    using CustomFactory = std::function<Custom(const SettingSpec&, QWidget* parent)>;

    SettingsFields(std::vector<SettingSpec> specs, QObject* parent, CustomFactory custom = {});
    ~SettingsFields() override;

    // The groups of the table in order of first appearance.
    std::vector<std::string> groups() const;
    // Adds one row per entry of `group` to `form`, the widgets children of `parent`.
    void addRows(const std::string& group, QFormLayout* form, QWidget* parent);
    // Shows `section`'s values (an absent key: the entry's default) in the fields built so far.
    void show(const nlohmann::json& section);
    // `section` with the values of the fields of `groups` (all when empty) written in; a field
    // whose text is not a valid value leaves the section's value.
    nlohmann::json read(nlohmann::json section, const std::vector<std::string>& groups = {}) const;
    QWidget* field(const std::string& name) const;
    // Why a line edit's text is not a valid value of its setting ("" when it is, or untouched).
    QString invalidReason(const std::string& name) const;

Q_SIGNALS:
    void edited();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    struct Field;
    QWidget* makeWidget(const SettingSpec& spec, QWidget* parent, Field& f);
    void showValue(Field& f, const nlohmann::json& v);
    // The reason `f`'s text is no valid value ("" when valid).
    QString textProblem(const Field& f) const;
    // Marks `f` invalid with `reason` (a red frame, the reason first in its tooltip); "" clears.
    void markInvalid(Field& f, const QString& reason);
    Field* fieldOf(const QObject* widget);
    nlohmann::json valueOf(const Field& f) const;  // null: no valid value

    std::vector<SettingSpec> specs_;
    CustomFactory custom_;
    std::vector<Field> fields_;
};

}  // namespace nnwb
