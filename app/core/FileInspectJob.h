// Reads price files in the background (BackgroundJobs) for the Data pane: the file's summary
// and bars (inspectPriceFile). Each result comes back through a CallQueue to the callback
// given with it; cancelAll() and the destructor drop the results still to come, so the widget
// that owns the job is never called after it is gone. Create and use on one thread (the
// GUI's); the reading runs on a BackgroundJobs thread.
#pragma once

#include <functional>
#include <memory>

#include <QObject>
#include <QString>

#include "app/core/DataAdapter.h"

namespace nnwb {

class CallQueue;

class FileInspectJob : public QObject {
    Q_OBJECT
public:
    explicit FileInspectJob(QObject* parent = nullptr);
    ~FileInspectJob() override;

    // Reads `path`; `done` then runs on this object's thread, unless cancelled before.
    void inspect(const QString& path, std::function<void(const PriceFileInfo&)> done);
    // Files being read whose results are still to come.
    int pending() const { return pending_; }
    void cancelAll();

private Q_SLOTS:
    void runQueuedCalls();

private:
    std::shared_ptr<CallQueue> calls_;
    int pending_ = 0;
    quint64 generation_ = 0;  // cancelAll() moves it on; older results are dropped
};

}  // namespace nnwb
