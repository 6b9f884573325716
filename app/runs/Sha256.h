// SHA-256 (FIPS 180-4) of bytes and of files, as lowercase hex: the content hash the run store
// keeps for data files and model bundles, so a run names exactly what it trained on and wrote.
// The hashing is nettle's (Debian's nettle-dev). A Sha256 object belongs to one thread; the
// free functions may be called from any thread. Qt-free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

struct sha256_ctx;  // nettle's state (nettle/sha2.h); only Sha256.cpp sees its fields

namespace nnwb {

class Sha256 {
public:
    Sha256();
    ~Sha256();
    Sha256(const Sha256&) = delete;
    Sha256& operator=(const Sha256&) = delete;
    void update(const void* data, size_t size);
    std::string hexDigest();  // finishes; the object is spent afterwards

private:
    std::unique_ptr<sha256_ctx> ctx_;
};

std::string sha256Hex(const std::string& bytes);
// Hashes the file and returns its size in `size`; throws std::runtime_error("cannot read
// PATH: reason").
std::string sha256File(const std::string& path, uint64_t* size = nullptr);

}  // namespace nnwb
