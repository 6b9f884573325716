// A file's stamp (device, inode, size, modification and status-change times in ns, as `stat`
// gives them): the one notion of "the same, unchanged file" of the process's caches, the parsed
// price files (BarFileCache), a kept worker's data (TrialWorker) and its data hashes
// (FileHashCache), with the one rule for what may be kept under a stamp (ReadStamp). Plain
// functions and values: any thread; Qt-free.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace nnwb {

struct FileStamp {
    uint64_t device = 0, inode = 0, size = 0;
    int64_t modifiedNs = 0, changedNs = 0;  // st_mtim, st_ctim
    bool regular = false;                   // a regular file (not a folder, device or FIFO)
    bool operator==(const FileStamp& o) const {
        return device == o.device && inode == o.inode && size == o.size &&
               modifiedNs == o.modifiedNs && changedNs == o.changedNs && regular == o.regular;
    }
    bool operator!=(const FileStamp& o) const { return !(*this == o); }
    // Its fields as text (a key of kept data).
    std::string text() const;
    // Whether its last change (either time) is at least a second before `nowNs` (real time):
    // any write after `nowNs` then gives the file other times, whatever the granularity of the
    // file system's clock (a second at most: ext3, HFS+; a few ms on ext4 or tmpfs).
    bool settledAt(int64_t nowNs) const;
};

// The file's stamp (a symlink followed), or of an open descriptor; none when it cannot be read.
std::optional<FileStamp> fileStamp(const std::string& path);
std::optional<FileStamp> fileStampOf(int fd);
// Nanoseconds of the real-time clock (the clock of file times).
int64_t realTimeNs();

// A file's stamp taken just before it is read, and whether what is read may be kept under it
// and reused while the file has that stamp. That needs the file to have been settled when the
// reading began: a file changed in the same tick of the file system's clock as the read could
// be written again with the same times and size (a stamp-keyed cache would serve the old
// contents), while a settled file's next write moves its times. A file changed less than a
// second ago is therefore read again each time until it has settled.
struct ReadStamp {
    std::optional<FileStamp> stamp;  // none: the file cannot be read
    bool settled = false;            // stamp->settledAt(the time it was taken)
    // Whether what was read may be kept under `stamp`: it was settled and the file still has
    // it after the reading (`after`, none when the file is gone).
    bool keeps(const std::optional<FileStamp>& after) const {
        return stamp && settled && after && *after == *stamp;
    }
};
ReadStamp stampForRead(const std::string& path);
ReadStamp stampForReadOf(int fd);

}  // namespace nnwb
