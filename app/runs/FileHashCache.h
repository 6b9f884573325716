// A file's SHA-256 kept for as long as the file is provably unchanged, for a process that names
// the same data file in many runs (a sweep's kept worker: docs/sweeps.md "Kept workers"). A
// file's stamp is its device, inode, size and modification and status-change times (ns); a hash
// is reused only when the file has the stamp it had before and after it was hashed and had not
// changed for a second before that (so a later write, however quick, moves its times). The
// owning thread only (TrialWorker keeps one per process); Qt-free.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace nnwb {

struct FileStamp {
    uint64_t device = 0, inode = 0, size = 0;
    int64_t modifiedNs = 0, changedNs = 0;  // st_mtim, st_ctim
    bool operator==(const FileStamp& o) const {
        return device == o.device && inode == o.inode && size == o.size &&
               modifiedNs == o.modifiedNs && changedNs == o.changedNs;
    }
    // Its fields as text (a key of kept data).
    std::string text() const;
    // Whether its last change (either time) is at least a second before `nowNs` (real time):
    // a write after `nowNs` then gives it other times, whatever the clock's granularity.
    bool settledAt(int64_t nowNs) const;
};

// The file's stamp (a symlink followed); none when it cannot be read.
std::optional<FileStamp> fileStamp(const std::string& path);
// Nanoseconds of the real-time clock (the clock of file times).
int64_t realTimeNs();

class FileHashCache {
public:
    // The file's SHA-256 and size (sha256File's), from the cache when its stamp is the one it
    // had when hashed; `hashed` (optional) says whether it was read now. Throws as sha256File.
    std::string sha256(const std::string& path, uint64_t* size = nullptr, bool* hashed = nullptr);

private:
    struct Entry {
        FileStamp stamp;
        std::string sha256;
    };
    std::map<std::string, Entry> entries_;  // by the path asked for
};

}  // namespace nnwb
