// The runs of a comparison set as a table: a check box in the run's colour that shows or hides
// its curves, the name, the experiment file, a device picker, the status (with the reason of a
// failure), the progress of the current epoch and a Stop button per run. GUI thread only.
#pragma once

#include <vector>

#include <QTableWidget>

#include "app/compare/ComparisonSet.h"
#include "app/core/TrainingTypes.h"
#include "compute/Backend.h"

namespace nnwb {

class DevicePicker;

class ComparisonRunsTable : public QTableWidget {
    Q_OBJECT
public:
    enum Column { kShow, kName, kFile, kData, kDevice, kStatus, kProgress, kStop, kColumns };

    explicit ComparisonRunsTable(QWidget* parent = nullptr);

    void setDevices(const std::vector<DeviceInfo>& devices) { devices_ = devices; }
    // Rebuilds every row from the set.
    void setRuns(const ComparisonSet& set, const std::vector<QColor>& colours);
    // Refreshes status and device of one row; `running` enables its Stop button.
    void updateRun(int run, const RunRecord& record, bool running);
    void setProgress(int run, const TrainingProgress& progress);
    void setEditable(bool editable);  // device pickers, while no run is going
    DevicePicker* devicePicker(int run) const;
    bool runShown(int run) const;

Q_SIGNALS:
    void deviceChosen(int run, const QString& id);
    void showToggled(int run, bool shown);
    void stopRequested(int run);

private:
    // The Data cell of run `r`: its data, marked when it differs from the first run's.
    QTableWidgetItem* dataItemFor(const ComparisonSet& set, int r) const;
    std::vector<DeviceInfo> devices_;
};

}  // namespace nnwb
