#include "ui/TradingSettingsDialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QVBoxLayout>

#include "app/core/ExperimentDocument.h"
#include "model/trading/TradingSettings.h"
#include "ui/SettingsFields.h"

namespace nnwb {

TradingSettingsDialog::TradingSettingsDialog(ExperimentDocument* doc, QWidget* parent)
    : QDialog(parent), doc_(doc) {
    setObjectName(QStringLiteral("tradingSettingsDialog"));
    setWindowTitle(tr("Trading Rules and Costs"));
    auto* layout = new QVBoxLayout(this);
    fields_ = new SettingsFields(tradingSettingSpecs(), this);
    for (const std::string& group : fields_->groups()) {
        auto* box = new QGroupBox(QString::fromStdString(group), this);
        auto* form = new QFormLayout(box);
        fields_->addRows(group, form, box);
        layout->addWidget(box);
    }
    fields_->show(doc_->experiment().trading.toJson());
    auto* buttons =
        new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, Qt::Horizontal, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &TradingSettingsDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

void TradingSettingsDialog::accept() {
    const nlohmann::json j = fields_->read(doc_->experiment().trading.toJson());
    if (doc_->setTrading(j)) QDialog::accept();
}

}  // namespace nnwb
