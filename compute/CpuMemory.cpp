#include "compute/CpuMemory.h"

#include <cstdlib>
#include <cstring>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace nnwb::cpumem {

void* allocZeroed(size_t bytes) {
    if (bytes < kHugeFrom) return std::calloc(1, bytes > 0 ? bytes : 1);
    // Whole huge pages, so that the advice covers every page of the block.
    if (bytes > size_t(-1) - kHugePage) return nullptr;
    const size_t size = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* block = std::aligned_alloc(kHugePage, size);
    if (!block) return nullptr;
#ifdef MADV_HUGEPAGE
    // Advice only: where the kernel has no THP (or refuses), the block stays in 4 KiB pages.
    (void)::madvise(block, size, MADV_HUGEPAGE);
#endif
    std::memset(block, 0, bytes);  // after the advice, so the first touch faults in huge pages
    return block;
}

void release(void* block) noexcept {
    std::free(block);
}

}  // namespace nnwb::cpumem
