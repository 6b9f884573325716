#include "app/runs/Sha256.h"

#include <nettle/sha2.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <vector>

namespace nnwb {

Sha256::Sha256() : ctx_(std::make_unique<sha256_ctx>()) {
    sha256_init(ctx_.get());
}

Sha256::~Sha256() = default;

void Sha256::update(const void* data, size_t size) {
    sha256_update(ctx_.get(), size, static_cast<const uint8_t*>(data));
}

std::string Sha256::hexDigest() {
    uint8_t digest[SHA256_DIGEST_SIZE];
    sha256_digest(ctx_.get(), SHA256_DIGEST_SIZE, digest);
    static const char* hex = "0123456789abcdef";
    std::string out;
    out.reserve(2 * SHA256_DIGEST_SIZE);
    for (const uint8_t b : digest) {
        out += hex[b >> 4];
        out += hex[b & 15];
    }
    return out;
}

std::string sha256Hex(const std::string& bytes) {
    Sha256 h;
    h.update(bytes.data(), bytes.size());
    return h.hexDigest();
}

std::string sha256File(const std::string& path, uint64_t* size) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
    Sha256 h;
    std::vector<char> buf(1 << 16);
    uint64_t n = 0;
    while (in) {
        in.read(buf.data(), std::streamsize(buf.size()));
        const std::streamsize got = in.gcount();
        if (got <= 0) break;
        h.update(buf.data(), size_t(got));
        n += uint64_t(got);
    }
    if (in.bad()) throw std::runtime_error("cannot read " + path + ": read error");
    if (size) *size = n;
    return h.hexDigest();
}

}  // namespace nnwb
