#include "model/AtomicFile.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace nnwb {

void writeFileAtomic(const std::string& path, const std::string& bytes) {
    const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
    auto fail = [&](const std::string& what) {
        const std::string reason = std::strerror(errno);
        ::unlink(tmp.c_str());
        throw std::runtime_error("cannot save " + path + ": " + what + ": " + reason);
    };
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        const std::string reason = std::strerror(errno);
        throw std::runtime_error("cannot save " + path + ": cannot create a temporary file: " +
                                 reason);
    }
    size_t done = 0;
    while (done < bytes.size()) {
        ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            ::close(fd);
            fail("write failed");
        }
        done += static_cast<size_t>(n);
    }
    if (::fsync(fd) != 0) {
        ::close(fd);
        fail("flush failed");
    }
    if (::close(fd) != 0) fail("close failed");
    if (std::rename(tmp.c_str(), path.c_str()) != 0) fail("rename failed");
}

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) throw std::runtime_error("cannot read " + path + ": read error");
    return ss.str();
}

}  // namespace nnwb
