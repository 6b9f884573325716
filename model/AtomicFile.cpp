#include "model/AtomicFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace nnwb {

namespace {

namespace fs = std::filesystem;

std::string folderOf(const std::string& path) {
    const auto slash = path.find_last_of('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

// Makes the rename itself durable; a folder that cannot be opened or synced (some file
// systems) costs only that guarantee, not the save.
void syncFolder(const std::string& path) {
    const int dfd = ::open(folderOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) return;
    ::fsync(dfd);
    ::close(dfd);
}

std::string kindOf(mode_t mode) {
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

// Writes all of `bytes` to `fd`; false with errno set on failure.
bool writeAll(int fd, const std::string& bytes) {
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        done += static_cast<size_t>(n);
    }
    return true;
}

// A device node, FIFO or the like: written where it is, as `cat > path` would.
void writeInPlace(const std::string& path, const std::string& target, const std::string& bytes) {
    const int fd = ::open(target.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        const int err = errno;
        throw std::runtime_error("cannot save " + path + ": " + std::strerror(err));
    }
    if (!writeAll(fd, bytes)) {
        const int err = errno;
        ::close(fd);
        throw std::runtime_error("cannot save " + path + ": write failed: " + std::strerror(err));
    }
    if (::close(fd) != 0) {
        const int err = errno;
        throw std::runtime_error("cannot save " + path + ": close failed: " + std::strerror(err));
    }
}

}  // namespace

std::string saveTarget(const std::string& path) {
    fs::path p = path;
    for (int hops = 0;; ++hops) {
        std::error_code ec;
        if (!fs::is_symlink(fs::symlink_status(p, ec))) return p.string();
        if (hops == 40)
            throw std::runtime_error("cannot save " + path + ": " + std::strerror(ELOOP));
        const fs::path to = fs::read_symlink(p, ec);
        if (ec) throw std::runtime_error("cannot save " + path + ": " + ec.message());
        p = to.is_absolute() ? to : p.parent_path() / to;
    }
}

void writeFileAtomic(const std::string& path, const std::string& bytes, bool durable) {
    const std::string target = saveTarget(path);
    struct stat st {};
    const bool exists = ::stat(target.c_str(), &st) == 0;
    // A folder takes the atomic path, whose rename then fails and names why.
    if (exists && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        return writeInPlace(path, target, bytes);
    // Unique per process and call, so concurrent saves never share a temporary file.
    static std::atomic<unsigned> serial{0};
    const std::string tmp =
        target + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(serial++);
    auto fail = [&](const std::string& what, int err, int fd) {
        if (fd >= 0) ::close(fd);
        ::unlink(tmp.c_str());
        throw std::runtime_error("cannot save " + path + ": " + what + ": " + std::strerror(err));
    };
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        const int err = errno;
        throw std::runtime_error("cannot save " + path + ": cannot create a temporary file in " +
                                 folderOf(target) + ": " + std::strerror(err));
    }
    // The file keeps its permissions (umask aside, a new one gets 0644).
    if (exists && S_ISREG(st.st_mode)) ::fchmod(fd, st.st_mode & 07777);
    if (!writeAll(fd, bytes)) fail("write failed", errno, fd);
    if (durable && ::fsync(fd) != 0) fail("flush failed", errno, fd);
    if (::close(fd) != 0) fail("close failed", errno, -1);
    if (std::rename(tmp.c_str(), target.c_str()) != 0) fail("rename failed", errno, -1);
    if (durable) syncFolder(target);
}

std::string readFile(const std::string& path, size_t maxBytes) {
    // O_NONBLOCK: a FIFO is refused below instead of blocking the open until a writer comes.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        const int err = errno;
        std::error_code ec;
        const std::string resolved = fs::absolute(path, ec).lexically_normal().string();
        throw std::runtime_error("cannot read " + path +
                                 (!ec && resolved != path ? " (" + resolved + ")" : "") + ": " +
                                 std::strerror(err));
    }
    auto fail = [&](const std::string& why) {
        ::close(fd);
        throw std::runtime_error("cannot read " + path + ": " + why);
    };
    struct stat st {};
    if (::fstat(fd, &st) != 0) fail(std::strerror(errno));
    if (!S_ISREG(st.st_mode)) fail("not a regular file (" + kindOf(st.st_mode) + ")");
    const auto tooBig = [&](unsigned long long n) {
        fail(std::to_string(n) + " bytes, more than the " + std::to_string(maxBytes) +
             "-byte limit for this file");
    };
    if (static_cast<unsigned long long>(st.st_size) > maxBytes) tooBig(st.st_size);
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    std::string out;
    out.reserve(static_cast<size_t>(st.st_size));
    char buf[1 << 16];
    for (;;) {  // bounded even if the file grows while it is read
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail(std::string("read error: ") + std::strerror(errno));
        }
        if (n == 0) break;
        if (out.size() + static_cast<size_t>(n) > maxBytes) tooBig(out.size() + size_t(n));
        out.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    return out;
}

}  // namespace nnwb
