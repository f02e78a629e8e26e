#include "meshscope/mesh/table.h"

#include <cstdlib>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace meshscope::detail {

namespace {
constexpr std::size_t huge_page = std::size_t{2} << 20;

[[nodiscard]] bool is_large(std::size_t bytes) noexcept {
    return bytes >= huge_page;
}
[[nodiscard]] std::size_t round_up(std::size_t bytes) noexcept {
    return (bytes + huge_page - 1) / huge_page * huge_page;
}
}  // namespace

void* allocate_table_bytes(std::size_t bytes) {
    if (!is_large(bytes)) return ::operator new(bytes);
    const std::size_t size = round_up(bytes);
    void* block = std::aligned_alloc(huge_page, size);
    if (block == nullptr) throw std::bad_alloc();
#if defined(__linux__)
    // Advice only: where transparent huge pages are off, the table still works with 4 KiB pages.
    (void)::madvise(block, size, MADV_HUGEPAGE);
#endif
    return block;
}

void free_table_bytes(void* block, std::size_t bytes) noexcept {
    if (!is_large(bytes)) {
        ::operator delete(block);
        return;
    }
    std::free(block);
}

}  // namespace meshscope::detail
