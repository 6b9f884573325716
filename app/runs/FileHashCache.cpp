#include "app/runs/FileHashCache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "app/runs/Sha256.h"

namespace nnwb {

namespace {
FileStamp stampOf(const struct stat& st) {
    FileStamp s;
    s.device = uint64_t(st.st_dev);
    s.inode = uint64_t(st.st_ino);
    s.size = uint64_t(st.st_size);
    s.modifiedNs = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    s.changedNs = int64_t(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
    return s;
}

// Closes the descriptor on every way out.
struct Fd {
    int fd;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};
}  // namespace

std::string FileStamp::text() const {
    return std::to_string(device) + ":" + std::to_string(inode) + ":" + std::to_string(size) + ":" +
           std::to_string(modifiedNs) + ":" + std::to_string(changedNs);
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

int64_t realTimeNs() {
    timespec ts{};
    ::clock_gettime(CLOCK_REALTIME, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

std::string FileHashCache::sha256(const std::string& path, uint64_t* size, bool* hashed) {
    if (hashed) *hashed = false;
    const std::optional<FileStamp> now = fileStamp(path);
    const auto it = entries_.find(path);
    if (now && it != entries_.end() && it->second.stamp == *now) {
        if (size) *size = now->size;
        return it->second.sha256;
    }
    if (it != entries_.end()) entries_.erase(it);
    // Hashed from one descriptor, its stamp taken before and after the reading.
    const Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
    struct stat before {
    }, after{};
    if (f.fd < 0 || ::fstat(f.fd, &before) != 0)
        throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
    Sha256 h;
    std::vector<char> buf(1 << 16);
    uint64_t n = 0;
    for (;;) {
        const ssize_t got = ::read(f.fd, buf.data(), buf.size());
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
        if (got == 0) break;
        h.update(buf.data(), size_t(got));
        n += uint64_t(got);
    }
    const std::string sha = h.hexDigest();
    if (hashed) *hashed = true;
    if (size) *size = n;
    const FileStamp stamp = stampOf(before);
    if (::fstat(f.fd, &after) == 0 && stampOf(after) == stamp && stamp.size == n &&
        stamp.settledAt(realTimeNs()))
        entries_[path] = {stamp, sha};
    return sha;
}

}  // namespace nnwb
