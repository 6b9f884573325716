#include "model/data/BarFileCache.h"

#include <sys/stat.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <system_error>

#include "model/data/BarImporter.h"

namespace nnwb {

namespace {

// The file's identity and times: a rewrite moves its status-change time even when its size
// and modification time are put back (touch -d, a copy keeping times).
struct Entry {
    std::string path;
    uint64_t device = 0, inode = 0, size = 0;
    int64_t modifiedNs = 0, changedNs = 0;
    std::shared_ptr<const LoadResult> result;
    bool sameFile(const Entry& o) const {
        return path == o.path && device == o.device && inode == o.inode && size == o.size &&
               modifiedNs == o.modifiedNs && changedNs == o.changedNs;
    }
};

constexpr size_t kKept = 4;
std::mutex cacheMutex;
std::deque<Entry> cache;  // most recent first
std::atomic<int> parses{0};

}  // namespace

LoadResult loadBarFileCached(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path p = fs::absolute(path, ec).lexically_normal();
    Entry key;
    key.path = ec ? path : p.string();
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
        // not a readable regular file: the importer says why
        ++parses;
        return loadBarFile(path);
    }
    key.device = uint64_t(st.st_dev);
    key.inode = uint64_t(st.st_ino);
    key.size = uint64_t(st.st_size);
    key.modifiedNs = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    key.changedNs = int64_t(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
    {
        std::lock_guard<std::mutex> lock(cacheMutex);
        for (auto it = cache.begin(); it != cache.end(); ++it) {
            if (it->sameFile(key)) {
                Entry hit = *it;
                cache.erase(it);
                cache.push_front(hit);
                return *hit.result;
            }
        }
    }
    ++parses;
    auto result = std::make_shared<const LoadResult>(loadBarFile(path));
    if (result->ok) {
        key.result = result;
        std::lock_guard<std::mutex> lock(cacheMutex);
        for (auto it = cache.begin(); it != cache.end(); ++it)
            if (it->path == key.path) {
                cache.erase(it);
                break;
            }
        cache.push_front(std::move(key));
        if (cache.size() > kKept) cache.pop_back();
    }
    return *result;
}

int barFileParses() {
    return parses.load();
}

}  // namespace nnwb
