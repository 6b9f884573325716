// A move-only RAII handle to a device buffer of float values, and BufRef, a non-owning
// (buffer, offset) view used to pass buffers to ops. Buffers are released by the Backend
// that allocated them, which must outlive them. Used only on the thread owning the backend.
#pragma once

#include <cstddef>

namespace nnwb {

class Backend;

class Buffer {
public:
    Buffer() = default;
    Buffer(Backend* owner, void* handle, size_t count) noexcept
        : owner_(owner), handle_(handle), count_(count) {}
    ~Buffer() { reset(); }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    Buffer(Buffer&& o) noexcept : owner_(o.owner_), handle_(o.handle_), count_(o.count_) {
        o.owner_ = nullptr;
        o.handle_ = nullptr;
        o.count_ = 0;
    }
    Buffer& operator=(Buffer&& o) noexcept {
        if (this != &o) {
            reset();
            owner_ = o.owner_;
            handle_ = o.handle_;
            count_ = o.count_;
            o.owner_ = nullptr;
            o.handle_ = nullptr;
            o.count_ = 0;
        }
        return *this;
    }
    void reset() noexcept;

    size_t size() const { return count_; }
    bool empty() const { return handle_ == nullptr; }
    void* handle() const { return handle_; }
    Backend* backend() const { return owner_; }

private:
    Backend* owner_ = nullptr;
    void* handle_ = nullptr;
    size_t count_ = 0;
};

// A view of a buffer from `offset` (in floats). A default BufRef is "no buffer".
struct BufRef {
    const Buffer* buf = nullptr;
    size_t offset = 0;
    BufRef() = default;
    BufRef(const Buffer& b, size_t off = 0) : buf(&b), offset(off) {}  // NOLINT implicit
    bool empty() const { return buf == nullptr || buf->empty(); }
    BufRef operator+(size_t more) const {
        BufRef r = *this;
        r.offset += more;
        return r;
    }
};

}  // namespace nnwb
