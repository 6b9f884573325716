// The experiment's trading rules and costs as a form generated from the trading settings table
// (model/trading/TradingSettings.h): OK makes the edit one undoable step of the document;
// a value the format refuses is named and nothing changes. GUI thread only.
#pragma once

#include <QDialog>

namespace nnwb {

class ExperimentDocument;
class SettingsFields;

class TradingSettingsDialog : public QDialog {
    Q_OBJECT
public:
    TradingSettingsDialog(ExperimentDocument* doc, QWidget* parent = nullptr);
    SettingsFields* fields() const { return fields_; }
    void accept() override;

private:
    ExperimentDocument* doc_;
    SettingsFields* fields_;
};

}  // namespace nnwb
