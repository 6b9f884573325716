// Reads a FIFO on a thread of its own until every writer has closed it, for the tests that save
// through a FIFO (a save must write it in place, not replace it). Open it while another
// descriptor holds the FIFO open for writing: then the open does not wait, and the reader reads
// to the end once that descriptor and the save's are closed. Created and waited for on the test
// thread; wait() before it goes out of scope.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <string>
#include <thread>

namespace nnwb::test {

class FifoReader {
public:
    explicit FifoReader(const std::string& fifo)
        : fd_(::open(fifo.c_str(), O_RDONLY)), thread_([this] {
              char buf[4096];
              for (ssize_t n; (n = ::read(fd_, buf, sizeof buf)) > 0;) got_.append(buf, size_t(n));
              ::close(fd_);
          }) {}
    // Waits for the end of the data; all that was read.
    std::string wait() {
        thread_.join();
        return got_;
    }

private:
    int fd_;
    std::string got_;
    std::thread thread_;
};

}  // namespace nnwb::test
