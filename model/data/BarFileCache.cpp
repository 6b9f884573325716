#include "model/data/BarFileCache.h"

#include <atomic>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <system_error>

#include "model/data/BarImporter.h"
#include "model/data/FileStamp.h"

namespace nnwb {

namespace {

struct Entry {
    std::string path;
    FileStamp stamp;
    std::shared_ptr<const LoadResult> result;
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
    const std::string key = ec ? path : p.string();
    const ReadStamp before = stampForRead(path);
    if (!before.stamp || !before.stamp->regular) {
        // not a readable regular file: the importer says why
        ++parses;
        return loadBarFile(path);
    }
    {
        std::lock_guard<std::mutex> lock(cacheMutex);
        for (auto it = cache.begin(); it != cache.end(); ++it) {
            if (it->path == key && it->stamp == *before.stamp) {
                Entry hit = *it;
                cache.erase(it);
                cache.push_front(hit);
                return *hit.result;
            }
        }
    }
    ++parses;
    auto result = std::make_shared<const LoadResult>(loadBarFile(path));
    std::lock_guard<std::mutex> lock(cacheMutex);
    for (auto it = cache.begin(); it != cache.end(); ++it)
        if (it->path == key) {  // an older stamp of the file
            cache.erase(it);
            break;
        }
    if (result->ok && before.keeps(fileStamp(path))) {
        cache.push_front(Entry{key, *before.stamp, result});
        if (cache.size() > kKept) cache.pop_back();
    }
    return *result;
}

int barFileParses() {
    return parses.load();
}

}  // namespace nnwb
