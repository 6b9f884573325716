// On-disk cache of built OpenCL program binaries, keyed by an FNV-1a 64 hash of the source,
// build options, device, driver and platform. Entries are written atomically (temporary file
// + rename) and carry a checksum; a missing, corrupt or unwritable entry is never an error.
// Stateless apart from its directory; each backend owns its own instance.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nnwb {

// FNV-1a 64-bit hash, continued from `h` (pass the previous result to chain fields).
uint64_t fnv1a64(const void* data, size_t size, uint64_t h = 14695981039346656037ull);

class OpenClProgramCache {
public:
    // Directory: $NNWB_CACHE_DIR, else $XDG_CACHE_HOME/nnwb/kernels, else
    // ~/.cache/nnwb/kernels. Disabled when NNWB_NO_KERNEL_CACHE=1 or no directory is known.
    OpenClProgramCache();
    // An explicit directory (empty = disabled).
    explicit OpenClProgramCache(std::string dir);

    bool enabled() const { return !dir_.empty(); }
    const std::string& dir() const { return dir_; }

    static uint64_t key(const std::string& source, const std::string& options,
                        const std::string& deviceName, const std::string& driverVersion,
                        const std::string& platform);
    std::string pathFor(uint64_t key) const;

    // The stored binary for `key`, or nothing when absent, unreadable or corrupt.
    std::optional<std::vector<unsigned char>> load(uint64_t key) const noexcept;
    // Writes the entry atomically; returns false (and leaves no partial file) on failure.
    bool store(uint64_t key, const std::vector<unsigned char>& binary) const noexcept;

private:
    std::string dir_;
};

}  // namespace nnwb
