// A combo box of compute devices from listDevices(): "CPU (native)" and every OpenCL device by
// name with compute units and memory; the item data is the device id ("cpu", "opencl:P:D").
// An id the machine does not have stays selectable, marked "not available". GUI thread only.
#pragma once

#include <vector>

#include <QComboBox>

#include "compute/Backend.h"

namespace nnwb {

class DevicePicker : public QComboBox {
    Q_OBJECT
public:
    explicit DevicePicker(QWidget* parent = nullptr);

    void setDevices(const std::vector<DeviceInfo>& devices);
    QString currentId() const;
    void setCurrentId(const QString& id);
    // "CPU (native)" / "pthread-skylake (16 CU, 62.4 GiB)" for a device id.
    QString labelFor(const QString& id) const;
    static QString describe(const DeviceInfo& info);

Q_SIGNALS:
    void deviceChanged(const QString& id);

private:
    std::vector<DeviceInfo> devices_;
};

}  // namespace nnwb
