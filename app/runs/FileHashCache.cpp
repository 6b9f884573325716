#include "app/runs/FileHashCache.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <vector>

#include "app/runs/Sha256.h"

namespace nnwb {

namespace {
// Closes the descriptor on every way out.
struct Fd {
    int fd;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};
}  // namespace

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
    const ReadStamp before = stampForReadOf(f.fd);
    if (!before.stamp)
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
    if (before.keeps(fileStampOf(f.fd)) && before.stamp->size == n)
        entries_[path] = {*before.stamp, sha};
    return sha;
}

}  // namespace nnwb
