#include "compute/OpenClProgramCache.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <thread>

namespace nnwb {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'N', 'N', 'W', 'B', 'C', 'L', 'B', '1'};
constexpr size_t kHeader = 8 + 8 + 8 + 8;  // magic, key, size, checksum

void putU64(unsigned char* p, uint64_t v) {
    for (int i = 0; i < 8; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
uint64_t getU64(const unsigned char* p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t(p[i]) << (8 * i);
    return v;
}

std::string envOr(const char* name) {
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

}  // namespace

uint64_t fnv1a64(const void* data, size_t size, uint64_t h) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < size; ++i) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

OpenClProgramCache::OpenClProgramCache() {
    if (envOr("NNWB_NO_KERNEL_CACHE") == "1") return;
    std::string dir = envOr("NNWB_CACHE_DIR");
    if (dir.empty()) {
        std::string xdg = envOr("XDG_CACHE_HOME");
        if (!xdg.empty()) {
            dir = xdg + "/nnwb/kernels";
        } else {
            std::string home = envOr("HOME");
            if (!home.empty()) dir = home + "/.cache/nnwb/kernels";
        }
    }
    dir_ = dir;
}

OpenClProgramCache::OpenClProgramCache(std::string dir) : dir_(std::move(dir)) {}

uint64_t OpenClProgramCache::key(const std::string& source, const std::string& options,
                                 const std::string& deviceName, const std::string& driverVersion,
                                 const std::string& platform) {
    uint64_t h = fnv1a64(nullptr, 0);
    for (const std::string* s : {&source, &options, &deviceName, &driverVersion, &platform}) {
        const uint64_t len = s->size();  // length prefix keeps field boundaries unambiguous
        h = fnv1a64(&len, sizeof len, h);
        h = fnv1a64(s->data(), s->size(), h);
    }
    return h;
}

std::string OpenClProgramCache::pathFor(uint64_t key) const {
    char name[32];
    std::snprintf(name, sizeof name, "%016llx.clbin", static_cast<unsigned long long>(key));
    return (fs::path(dir_) / name).string();
}

std::optional<std::vector<unsigned char>> OpenClProgramCache::load(uint64_t key) const noexcept {
    if (!enabled()) return std::nullopt;
    try {
        std::ifstream in(pathFor(key), std::ios::binary);
        if (!in) return std::nullopt;
        std::vector<unsigned char> all((std::istreambuf_iterator<char>(in)),
                                       std::istreambuf_iterator<char>());
        if (all.size() < kHeader || std::memcmp(all.data(), kMagic, 8) != 0) return std::nullopt;
        if (getU64(all.data() + 8) != key) return std::nullopt;
        const uint64_t size = getU64(all.data() + 16);
        if (size == 0 || size != all.size() - kHeader) return std::nullopt;
        if (getU64(all.data() + 24) != fnv1a64(all.data() + kHeader, size)) return std::nullopt;
        return std::vector<unsigned char>(all.begin() + kHeader, all.end());
    } catch (...) {
        return std::nullopt;
    }
}

bool OpenClProgramCache::store(uint64_t key,
                               const std::vector<unsigned char>& binary) const noexcept {
    if (!enabled() || binary.empty()) return false;
    std::string tmp;
    try {
        std::error_code ec;
        fs::create_directories(dir_, ec);
        if (ec) return false;
        static std::atomic<unsigned> counter{0};
        std::ostringstream t;
        t << pathFor(key) << ".tmp." << std::hash<std::thread::id>()(std::this_thread::get_id())
          << '.' << std::chrono::steady_clock::now().time_since_epoch().count() << '.' << counter++;
        tmp = t.str();
        unsigned char header[kHeader];
        std::memcpy(header, kMagic, 8);
        putU64(header + 8, key);
        putU64(header + 16, binary.size());
        putU64(header + 24, fnv1a64(binary.data(), binary.size()));
        {
            std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
            if (!out) return false;
            out.write(reinterpret_cast<const char*>(header), kHeader);
            out.write(reinterpret_cast<const char*>(binary.data()),
                      static_cast<std::streamsize>(binary.size()));
            out.flush();
            if (!out) {
                out.close();
                fs::remove(tmp, ec);
                return false;
            }
        }
        fs::rename(tmp, pathFor(key), ec);
        if (ec) {
            fs::remove(tmp, ec);
            return false;
        }
        return true;
    } catch (...) {
        std::error_code ec;
        if (!tmp.empty()) fs::remove(tmp, ec);
        return false;
    }
}

}  // namespace nnwb
