// File saves and reads. A save of a regular (or new) file goes to a temporary file in the
// target's folder, is flushed to disk, then renamed over the target, so a failed save leaves the
// previous file intact (a folder there fails the rename). A symlink is followed (its target is
// saved, the link kept); a device node, FIFO or other non-regular file is written in place (no
// temporary file, no rename). Reads refuse non-regular files and stop at a size limit. Any
// thread (each call works on its own temporary file).
#pragma once

#include <cstddef>
#include <string>

namespace nnwb {

// The most readFile reads unless told otherwise: 4 GiB.
constexpr size_t kMaxReadBytes = size_t(1) << 32;

// Throws std::runtime_error("cannot save PATH: reason") on failure; the old file is untouched
// (a non-regular target may have been partly written). `durable` false skips the two syncs (the
// file's and its folder's): for files only a process about to start reads (a sweep trial's
// experiment file), where a crash loses nothing the next write does not make again.
void writeFileAtomic(const std::string& path, const std::string& bytes, bool durable = true);
// The path a save of `path` writes: symlinks followed to their final target (which may not
// exist yet). Throws std::runtime_error("cannot save PATH: ...") on a symlink loop.
std::string saveTarget(const std::string& path);
// Reads a whole regular file (a symlink to one is followed) of at most `maxBytes` bytes; throws
// std::runtime_error("cannot read PATH: reason") for a missing file, a device, FIFO or folder
// ("not a regular file (a character device)") or a larger file ("N bytes, more than the
// M-byte limit").
std::string readFile(const std::string& path, size_t maxBytes = kMaxReadBytes);

}  // namespace nnwb
