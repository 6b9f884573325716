#include "ui/DevicePicker.h"

#include "app/core/QtText.h"

namespace nnwb {

DevicePicker::DevicePicker(QWidget* parent) : QComboBox(parent) {
    setObjectName(QStringLiteral("devicePicker"));
    setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    setMinimumContentsLength(18);
    connect(this, qOverload<int>(&QComboBox::currentIndexChanged), this,
            [this](int) { Q_EMIT deviceChanged(currentId()); });
}

QString DevicePicker::describe(const DeviceInfo& d) {
    if (d.id == "cpu") return tr("%1 · %2 threads").arg(q(d.name)).arg(d.computeUnits);
    const double gib = static_cast<double>(d.globalMemory) / (1024.0 * 1024.0 * 1024.0);
    // "OpenCL" first: PoCL's CPU device is named like a CPU, and read like the native backend.
    return tr("OpenCL: %1 · %2 CU, %3 GiB").arg(q(d.name)).arg(d.computeUnits).arg(gib, 0, 'f', 1);
}

void DevicePicker::setDevices(const std::vector<DeviceInfo>& devices) {
    const QString keep = currentId();
    devices_ = devices;
    const QSignalBlocker block(this);
    clear();
    for (const DeviceInfo& d : devices) {
        addItem(describe(d), q(d.id));
        setItemData(count() - 1,
                    tr("%1\nid: %2\nplatform: %3\nversion: %4\ntype: %5")
                        .arg(q(d.name), q(d.id), q(d.platform), q(d.version), q(d.type)),
                    Qt::ToolTipRole);
    }
    if (!keep.isEmpty()) setCurrentId(keep);
}

QString DevicePicker::currentId() const {
    return currentData().toString();
}

void DevicePicker::setCurrentId(const QString& id) {
    int i = findData(id);
    if (i < 0) {
        addItem(tr("%1 (not available)").arg(id), id);
        i = count() - 1;
    }
    setCurrentIndex(i);
}

QString DevicePicker::labelFor(const QString& id) const {
    for (const DeviceInfo& d : devices_)
        if (q(d.id) == id) return d.id == "cpu" ? q(d.name) : tr("OpenCL: %1").arg(q(d.name));
    return id;
}

}  // namespace nnwb
