#include "app/runs/HostClock.h"

#include <unistd.h>

#include <chrono>

namespace nnwb {

std::string thisHostName() {
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) != 0) return {};
    return buf;
}

double unixSeconds() {
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

}  // namespace nnwb
