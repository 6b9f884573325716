#include "model/data/FileStamp.h"

#include <sys/stat.h>
#include <time.h>

namespace nnwb {

namespace {
FileStamp stampOf(const struct stat& st) {
    FileStamp s;
    s.device = uint64_t(st.st_dev);
    s.inode = uint64_t(st.st_ino);
    s.size = uint64_t(st.st_size);
    s.modifiedNs = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    s.changedNs = int64_t(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
    s.regular = S_ISREG(st.st_mode);
    return s;
}

ReadStamp readStamp(int64_t nowNs, std::optional<FileStamp> stamp) {
    ReadStamp r;
    r.settled = stamp && stamp->settledAt(nowNs);
    r.stamp = std::move(stamp);
    return r;
}
}  // namespace

std::string FileStamp::text() const {
    return std::to_string(device) + ":" + std::to_string(inode) + ":" + std::to_string(size) + ":" +
           std::to_string(modifiedNs) + ":" + std::to_string(changedNs) + (regular ? "" : ":x");
}

bool FileStamp::settledAt(int64_t nowNs) const {
    const int64_t second = 1000000000;
    return modifiedNs <= nowNs - second && changedNs <= nowNs - second;
}

std::optional<FileStamp> fileStamp(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return std::nullopt;
    return stampOf(st);
}

std::optional<FileStamp> fileStampOf(int fd) {
    struct stat st {};
    if (fd < 0 || ::fstat(fd, &st) != 0) return std::nullopt;
    return stampOf(st);
}

int64_t realTimeNs() {
    timespec ts{};
    ::clock_gettime(CLOCK_REALTIME, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// The clock is read before the stamp: a write after the stamp was taken moves the file's times
// past a settled stamp's.
ReadStamp stampForRead(const std::string& path) {
    const int64_t now = realTimeNs();
    return readStamp(now, fileStamp(path));
}

ReadStamp stampForReadOf(int fd) {
    const int64_t now = realTimeNs();
    return readStamp(now, fileStampOf(fd));
}

}  // namespace nnwb
