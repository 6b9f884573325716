// Atomic file writes: the bytes go to a temporary file in the target's folder, are flushed to
// disk, then renamed over the target, so a failed save leaves the previous file intact.
// Any thread (each call works on its own temporary file).
#pragma once

#include <string>

namespace nnwb {

// Throws std::runtime_error("cannot save PATH: reason") on failure; the old file is untouched.
void writeFileAtomic(const std::string& path, const std::string& bytes);
// Reads a whole file; throws std::runtime_error("cannot read PATH: reason").
std::string readFile(const std::string& path);

}  // namespace nnwb
