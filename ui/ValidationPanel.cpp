#include "ui/ValidationPanel.h"

#include <QFormLayout>
#include <QGroupBox>
#include <QSpinBox>
#include <QVBoxLayout>

#include "app/core/ExperimentDocument.h"
#include "model/ValidationSettings.h"
#include "ui/SettingsFields.h"

namespace nnwb {

ValidationPanel::ValidationPanel(ExperimentDocument* doc, QWidget* parent)
    : QWidget(parent), doc_(doc) {
    setObjectName(QStringLiteral("validationPanel"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    fields_ = new SettingsFields(validationSettingSpecs(), this);
    for (const std::string& group : fields_->groups()) {
        auto* box = new QGroupBox(QString::fromStdString(group), this);
        auto* form = new QFormLayout(box);
        form->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
        form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
        form->setRowWrapPolicy(QFormLayout::WrapLongRows);
        fields_->addRows(group, form, box);
        layout->addWidget(box);
    }
    connect(fields_, &SettingsFields::edited, this, &ValidationPanel::commit);
    connect(doc_, &ExperimentDocument::replaced, this, &ValidationPanel::syncFromDocument);
    connect(doc_, &ExperimentDocument::validationChanged, this, &ValidationPanel::syncFromDocument);
    syncFromDocument();
}

// A field that has the focus while the pane is deleted is left (focus-out, editingFinished)
// from QWidget's destructor, after this one: its edit must not reach commit() then.
ValidationPanel::~ValidationPanel() {
    disconnect(fields_, nullptr, this, nullptr);
}

void ValidationPanel::syncFromDocument() {
    const ValidationConfig& v = doc_->experiment().validation;
    fields_->show(v.toJson());
    // The lengths are in the chosen unit: "20 bars", not the table's "unit (bars, days or
    // weeks)", which also made the dock (and the window) wider than a 1280 px screen.
    for (const char* name : {"wfTrainLength", "wfTestLength", "wfStep"})
        if (auto* box = qobject_cast<QSpinBox*>(fields_->field(name)))
            box->setSuffix(QLatin1Char(' ') + QString::fromStdString(v.unit));
}

void ValidationPanel::commit() {
    doc_->setValidation(fields_->read(doc_->experiment().validation.toJson()));
    syncFromDocument();  // a refused value shows the document's again
}

}  // namespace nnwb
