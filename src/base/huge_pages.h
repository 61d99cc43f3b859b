// Whether to ask the kernel for transparent huge pages for a large array.
//
// Huge pages save a large fresh array most of its page faults (one per 2 MiB instead of one per
// 4 KiB). But on Linux's usual setting (`defrag` = madvise) an array advised with MADV_HUGEPAGE
// makes each fault that finds no free 2 MiB block reclaim page cache and compact memory first, on
// the faulting thread. With the page cache full (after a large load, or on any busy machine) that
// cost a fresh top-3 at 10x 1.2 s more than base pages did. So a caller advises huge pages only
// when the buddy allocator already holds enough free 2 MiB blocks (docs/design/decisions.md 232).
#pragma once

#include <cstddef>
#include <string_view>

namespace omnigraph {

// Bytes held in free blocks of at least `huge_bytes` in a /proc/buddyinfo text whose order 0 is
// `page_bytes`, over every zone. Lines it cannot read count nothing.
size_t FreeHugeBlockBytes(std::string_view buddyinfo, size_t page_bytes, size_t huge_bytes);

// Whether `free_huge_bytes` of free huge blocks serve `bytes` and leave the headroom that keeps
// the kernel from reclaiming (kHugeHeadroomBytes).
bool HugePagesCheap(size_t bytes, size_t free_huge_bytes);
inline constexpr size_t kHugeHeadroomBytes = size_t{256} << 20;

// Whether this machine can give `bytes` of transparent huge pages now without reclaim or
// compaction: reads /proc/buddyinfo. True where it cannot be read (advising is harmless where
// the kernel has no such cost to pay, and the caller's earlier behaviour).
bool HugePagesCheapNow(size_t bytes);

// Whether the kernel gives transparent huge pages only where they are advised (its `enabled`
// setting is `madvise`): then advising, or glibc's glibc.malloc.hugetlb=1, changes what a process
// gets. False where the setting cannot be read, or is `always` or `never`.
bool HugePagesAdvisedOnly();

}  // namespace omnigraph
