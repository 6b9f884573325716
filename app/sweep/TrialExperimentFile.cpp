#include "app/sweep/TrialExperimentFile.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "model/Experiment.h"

namespace nnwb {

void writeTrialExperiment(const Experiment& e, const std::string& path) {
    const std::string bytes = e.toJson().dump(2) + "\n";  // as Experiment::save
    // NAME.tmp-PID-N, as writeFileAtomic's (a resume removes those a kill left).
    static std::atomic<unsigned> serial{0};
    const std::string tmp =
        path + ".tmp-" + std::to_string(::getpid()) + "-t" + std::to_string(serial++);
    auto fail = [&](const std::string& what, int err, int fd) {
        if (fd >= 0) ::close(fd);
        ::unlink(tmp.c_str());
        throw std::runtime_error("cannot save " + path + ": " + what + ": " + std::strerror(err));
    };
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) fail("cannot create a temporary file", errno, -1);
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) fail("write failed", errno, fd);
        done += size_t(n);
    }
    if (::close(fd) != 0) fail("close failed", errno, -1);
    if (std::rename(tmp.c_str(), path.c_str()) != 0) fail("rename failed", errno, -1);
}

}  // namespace nnwb
