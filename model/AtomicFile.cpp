#include "model/AtomicFile.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace nnwb {

namespace {

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

}  // namespace

void writeFileAtomic(const std::string& path, const std::string& bytes) {
    // Unique per process and call, so concurrent saves never share a temporary file.
    static std::atomic<unsigned> serial{0};
    const std::string tmp =
        path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(serial++);
    auto fail = [&](const std::string& what, int err, int fd) {
        if (fd >= 0) ::close(fd);
        ::unlink(tmp.c_str());
        throw std::runtime_error("cannot save " + path + ": " + what + ": " + std::strerror(err));
    };
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        const int err = errno;
        throw std::runtime_error("cannot save " + path + ": cannot create a temporary file in " +
                                 folderOf(path) + ": " + std::strerror(err));
    }
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail("write failed", errno, fd);
        }
        done += static_cast<size_t>(n);
    }
    if (::fsync(fd) != 0) fail("flush failed", errno, fd);
    if (::close(fd) != 0) fail("close failed", errno, -1);
    if (std::rename(tmp.c_str(), path.c_str()) != 0) fail("rename failed", errno, -1);
    syncFolder(path);
}

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        const int err = errno;
        std::error_code ec;
        const std::string resolved =
            std::filesystem::absolute(path, ec).lexically_normal().string();
        throw std::runtime_error("cannot read " + path +
                                 (!ec && resolved != path ? " (" + resolved + ")" : "") + ": " +
                                 std::strerror(err));
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) throw std::runtime_error("cannot read " + path + ": read error");
    return ss.str();
}

}  // namespace nnwb
