// The exception type of compute/: a device, build or argument failure with a readable message
// (for OpenCL program builds it carries the compiler's build log). Thrown on the thread that
// called the failing op; the training worker turns it into an error report.
#pragma once

#include <stdexcept>
#include <string>

namespace nnwb {

class ComputeError : public std::runtime_error {
public:
    explicit ComputeError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace nnwb
