// Tables of a whole mesh: a 2^20-rank 4-D mesh has 32 MB of coordinates and 32 MB of groups. Filling such a
// table costs little; getting its memory costs more: one page fault per 4 KiB page (3-4 us each on a VM, about
// 30 ms for 32 MB), and std::vector<T>(n) writes every byte twice (zeroes, then the values). A Table asks for
// 2 MiB-aligned memory advised for transparent huge pages (one fault per 2 MiB) and leaves elements
// uninitialized until the filler writes them.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace meshscope {

namespace detail {
// Large blocks are 2 MiB-aligned and advised for huge pages; small ones come from operator new.
[[nodiscard]] void* allocate_table_bytes(std::size_t bytes);
void free_table_bytes(void* block, std::size_t bytes) noexcept;
}  // namespace detail

template <typename T>
class TableAllocator {
public:
    static_assert(std::is_trivially_destructible_v<T>, "a Table holds plain numbers");
    using value_type = T;

    TableAllocator() noexcept = default;
    template <typename U>
    TableAllocator(const TableAllocator<U>&) noexcept {}

    [[nodiscard]] T* allocate(std::size_t n) {
        if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
        return static_cast<T*>(detail::allocate_table_bytes(n * sizeof(T)));
    }
    void deallocate(T* block, std::size_t n) noexcept { detail::free_table_bytes(block, n * sizeof(T)); }

    // Default-initialization: a resized Table's new elements are left for the filler to write.
    template <typename U>
    void construct(U* at) noexcept(std::is_nothrow_default_constructible_v<U>) {
        ::new (static_cast<void*>(at)) U;
    }
    template <typename U, typename... Args>
    void construct(U* at, Args&&... args) {
        ::new (static_cast<void*>(at)) U(std::forward<Args>(args)...);
    }

    friend bool operator==(const TableAllocator&, const TableAllocator&) noexcept { return true; }
};

template <typename T>
using Table = std::vector<T, TableAllocator<T>>;

}  // namespace meshscope
