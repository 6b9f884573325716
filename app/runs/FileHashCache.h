// A file's SHA-256 kept for as long as the file is provably unchanged, for a process that names
// the same data file in many runs (a sweep's kept worker: docs/sweeps.md "Kept workers"). A
// hash is kept under the file's stamp (model/data/FileStamp.h: device, inode, size,
// modification and status-change times) and reused while the file has it, by the rule of
// ReadStamp: the stamp the same before and after the hashing, and settled when it began (so a
// later write, however quick, moves the file's times). The owning thread only (TrialWorker
// keeps one per process); Qt-free.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "model/data/FileStamp.h"

namespace nnwb {

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
