#include "app/core/FileInspectJob.h"

#include "app/core/BackgroundJobs.h"
#include "app/core/CallQueue.h"

namespace nnwb {

FileInspectJob::FileInspectJob(QObject* parent)
    : QObject(parent), calls_(std::make_shared<CallQueue>(this, "runQueuedCalls")) {}

FileInspectJob::~FileInspectJob() {
    calls_->close();
}

void FileInspectJob::inspect(const QString& path, std::function<void(const PriceFileInfo&)> done) {
    ++pending_;
    const quint64 generation = generation_;
    BackgroundJobs::instance().post(
        [calls = calls_, p = path.toStdString(), done = std::move(done), generation, this] {
            PriceFileInfo info = inspectPriceFile(p);
            // Runs on this object's thread only while it lives (the destructor closes calls).
            calls->post([this, done, generation, info = std::move(info)] {
                if (generation != generation_) return;  // cancelled
                --pending_;
                done(info);
            });
        });
}

void FileInspectJob::cancelAll() {
    ++generation_;
    pending_ = 0;
}

void FileInspectJob::runQueuedCalls() {
    calls_->run();
}

}  // namespace nnwb
