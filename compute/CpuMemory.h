// Zeroed host memory for CpuBackend's buffers. Large blocks (a population's parameters,
// gradients and Adam moments: megabytes each, passed over several times a step) are aligned to
// 2 MiB and advised as transparent huge pages (Linux MADV_HUGEPAGE, which systems with THP in
// "madvise" mode require), so that those passes take fewer TLB misses and page walks and the
// prefetchers are not stopped at every 4 KiB page. Stateless: any thread may call these.
#pragma once

#include <cstddef>

namespace nnwb::cpumem {

constexpr size_t kHugePage = size_t(2) << 20;  // bytes of an x86-64 huge page
constexpr size_t kHugeFrom = size_t(4) << 20;  // blocks of at least this many bytes go to them

// `bytes` zeroed bytes (at least one), 16-byte aligned, and 2 MiB aligned and advised as huge
// pages from kHugeFrom bytes on; null when the memory cannot be had. Free with release.
void* allocZeroed(size_t bytes);
void release(void* block) noexcept;

}  // namespace nnwb::cpumem
