#include "model/data/BarFileCache.h"

#include <atomic>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <system_error>

#include "model/data/BarImporter.h"

namespace nnwb {

namespace {

struct Entry {
    std::string path;
    std::uintmax_t size = 0;
    std::filesystem::file_time_type modified;
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
    Entry key;
    key.path = ec ? path : p.string();
    key.size = fs::file_size(path, ec);
    if (!ec) key.modified = fs::last_write_time(path, ec);
    if (ec) {  // not a readable regular file: the importer says why
        ++parses;
        return loadBarFile(path);
    }
    {
        std::lock_guard<std::mutex> lock(cacheMutex);
        for (auto it = cache.begin(); it != cache.end(); ++it) {
            if (it->path == key.path && it->size == key.size && it->modified == key.modified) {
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
