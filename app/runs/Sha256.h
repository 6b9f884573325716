// SHA-256 (FIPS 180-4) of bytes and of files, as lowercase hex: the content hash the run store
// keeps for data files and model bundles, so a run names exactly what it trained on and wrote.
// Pure functions; any thread. Qt-free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace nnwb {

class Sha256 {
public:
    Sha256();
    void update(const void* data, size_t size);
    std::string hexDigest();  // finishes; the object is spent afterwards

private:
    void block(const uint8_t* p);
    uint32_t h_[8];
    uint8_t buf_[64];
    size_t bufLen_ = 0;
    uint64_t total_ = 0;
};

std::string sha256Hex(const std::string& bytes);
// Hashes the file and returns its size in `size`; throws std::runtime_error("cannot read
// PATH: reason").
std::string sha256File(const std::string& path, uint64_t* size = nullptr);

}  // namespace nnwb
