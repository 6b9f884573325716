#include "ui/TrainingPanel.h"

#include <QFormLayout>
#include <QGroupBox>
#include <QVBoxLayout>

#include "app/core/ExperimentDocument.h"
#include "compute/BackendRegistry.h"
#include "model/TrainingSettings.h"
#include "ui/DevicePicker.h"
#include "ui/SettingsFields.h"
#include "ui/ValidationPanel.h"

namespace nnwb {

namespace {

QFormLayout* form(QGroupBox* box) {
    auto* f = new QFormLayout(box);
    f->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
    f->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    // In a narrow dock a field that does not fit beside its label goes below it.
    f->setRowWrapPolicy(QFormLayout::WrapLongRows);
    return f;
}

// The `device` entry as a picker of the machine's devices.
SettingsFields::Custom devicePickerField(QWidget* parent, DevicePicker** out) {
    auto* picker = new DevicePicker(parent);
    picker->setDevices(listDevices());
    *out = picker;
    SettingsFields::Custom c;
    c.widget = picker;
    c.show = [picker](const nlohmann::json& v) {
        picker->setCurrentId(QString::fromStdString(v.is_string() ? v.get<std::string>() : ""));
    };
    c.value = [picker]() -> nlohmann::json {
        if (picker->currentId().isEmpty()) return nullptr;
        return picker->currentId().toStdString();
    };
    c.connectEdits = [picker](std::function<void()> edited) {
        QObject::connect(picker, &DevicePicker::deviceChanged, picker,
                         [edited = std::move(edited)] { edited(); });
    };
    return c;
}

}  // namespace

TrainingPanel::TrainingPanel(ExperimentDocument* doc, QWidget* parent)
    : QWidget(parent), doc_(doc) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    fields_ = new SettingsFields(trainingSettingSpecs(), this,
                                 [this](const SettingSpec& s, QWidget* parent) {
                                     return s.key == "device" ? devicePickerField(parent, &device_)
                                                              : SettingsFields::Custom();
                                 });
    for (const std::string& group : fields_->groups()) {
        auto* box = new QGroupBox(QString::fromStdString(group), this);
        fields_->addRows(group, form(box), box);
        layout->addWidget(box);
    }
    layout->addWidget(new ValidationPanel(doc, this));
    layout->addStretch(1);
    connect(fields_, &SettingsFields::edited, this, &TrainingPanel::commit);
    connect(doc_, &ExperimentDocument::replaced, this, &TrainingPanel::syncFromDocument);
    connect(doc_, &ExperimentDocument::trainingChanged, this, &TrainingPanel::syncFromDocument);
    syncFromDocument();
}

// A field that has the focus while the pane is deleted is left (focus-out, editingFinished)
// from QWidget's destructor, after this one: its edit must not reach commit() then.
TrainingPanel::~TrainingPanel() {
    disconnect(fields_, nullptr, this, nullptr);
}

void TrainingPanel::syncFromDocument() {
    fields_->show(doc_->experiment().training.toJson());
}

void TrainingPanel::commit() {
    nlohmann::json j = fields_->read(doc_->experiment().training.toJson());
    nlohmann::json& weights = j["classWeights"]["weights"];
    if (j["classWeights"]["mode"] == "given" && (!weights.is_array() || weights.empty()))
        weights = std::vector<double>(3, 1.0);  // a start the user edits
    try {
        doc_->setTraining(TrainingConfig::fromJson(j));
    } catch (const std::invalid_argument&) {
        // The fields hold only values their settings accept; nothing to store otherwise.
    }
    syncFromDocument();  // normalizes the text of the number fields
}

}  // namespace nnwb
