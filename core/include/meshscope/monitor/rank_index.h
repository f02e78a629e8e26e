// RankIndex: rank -> a small non-negative value (an index, a flag), costing memory by the ranks put in it, never
// by how large they are. A job may claim 2^20 ranks and report one, rank 1048575: a table indexed by rank would
// cost its whole world. Ranks below a dense bound live in a vector (one lookup, as fast as a plain table); the
// bound grows with the ranks put in (at most dense_factor slots per entry, or min_dense), and ranks past it live
// in a hash map until the vector reaches them.
//
//   meshscope::RankIndex index;
//   index.set(1048575, 0);          // one entry: a few dozen bytes, not 4 MiB
//   index.get(1048575);             // 0; index.get(7) == RankIndex::none
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace meshscope {

class RankIndex {
public:
    static constexpr std::int32_t none = -1;
    static constexpr std::size_t min_dense = 1024;  // slots a vector may have whatever it holds (4 KiB)
    static constexpr std::size_t dense_factor = 4;  // else at most this many slots per entry

    [[nodiscard]] std::int32_t get(std::int64_t rank) const noexcept {
        if (rank < 0) return none;
        if (static_cast<std::uint64_t>(rank) < dense_.size()) return dense_[static_cast<std::size_t>(rank)];
        if (sparse_.empty()) return none;
        const auto it = sparse_.find(rank);
        return it == sparse_.end() ? none : it->second;
    }
    [[nodiscard]] bool contains(std::int64_t rank) const noexcept { return get(rank) != none; }

    // value >= 0; a negative rank is ignored.
    void set(std::int64_t rank, std::int32_t value) {
        if (rank < 0) return;
        const auto r = static_cast<std::uint64_t>(rank);
        if (r >= dense_.size()) {
            const std::size_t bound = std::max(min_dense, dense_factor * (size_ + 1));
            if (r < bound) grow(std::min<std::size_t>(bound, std::max<std::size_t>(r + 1, 2 * dense_.size())));
        }
        if (r < dense_.size()) {
            auto& slot = dense_[static_cast<std::size_t>(r)];
            if (slot == none) ++size_;
            slot = value;
        } else {
            const auto [it, added] = sparse_.insert_or_assign(rank, value);
            if (added) ++size_;
        }
        highest_ = std::max(highest_, rank);
    }

    [[nodiscard]] std::size_t size() const noexcept { return size_; }
    [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
    // The highest rank put in; -1 when empty.
    [[nodiscard]] std::int64_t highest() const noexcept { return highest_; }
    // fn(rank, value) for every entry, in no particular order.
    template <typename F>
    void for_each(F&& fn) const {
        for (std::size_t r = 0; r < dense_.size(); ++r)
            if (dense_[r] != none) fn(static_cast<std::int64_t>(r), dense_[r]);
        for (const auto& [rank, value] : sparse_) fn(rank, value);
    }

private:
    void grow(std::size_t size) {
        dense_.resize(size, none);
        for (auto it = sparse_.begin(); it != sparse_.end();) {
            if (static_cast<std::uint64_t>(it->first) < size) {
                dense_[static_cast<std::size_t>(it->first)] = it->second;
                it = sparse_.erase(it);
            } else {
                ++it;
            }
        }
    }

    std::vector<std::int32_t> dense_;
    std::unordered_map<std::int64_t, std::int32_t> sparse_;
    std::size_t size_ = 0;
    std::int64_t highest_ = -1;
};

// RankBits: a set of ranks as RankIndex keeps them, one bit each where they are dense: a bit per rank below a
// bound that grows with the ranks put in (32 per rank, or 65,536), a hash set past it. Naming every rank of a
// 2^20-rank world costs 128 KiB; a few ranks near 2^20 cost a few dozen bytes each.
class RankBits {
public:
    static constexpr std::size_t min_dense = 65536;
    static constexpr std::size_t dense_factor = 32;

    [[nodiscard]] bool contains(std::int64_t rank) const noexcept {
        if (rank < 0) return false;
        if (static_cast<std::uint64_t>(rank) < dense_.size()) return dense_[static_cast<std::size_t>(rank)];
        return !sparse_.empty() && sparse_.count(rank) > 0;
    }
    void insert(std::int64_t rank) {
        if (rank < 0 || contains(rank)) return;
        const auto r = static_cast<std::uint64_t>(rank);
        if (r >= dense_.size()) {
            const std::size_t bound = std::max(min_dense, dense_factor * (size_ + 1));
            if (r < bound) grow(std::min<std::size_t>(bound, std::max<std::size_t>(r + 1, 2 * dense_.size())));
        }
        if (r < dense_.size())
            dense_[static_cast<std::size_t>(r)] = true;
        else
            sparse_.insert(rank);
        ++size_;
    }
    [[nodiscard]] std::size_t size() const noexcept { return size_; }
    template <typename F>
    void for_each(F&& fn) const {
        for (std::size_t r = 0; r < dense_.size(); ++r)
            if (dense_[r]) fn(static_cast<std::int64_t>(r));
        for (const std::int64_t rank : sparse_) fn(rank);
    }

private:
    void grow(std::size_t size) {
        dense_.resize(size, false);
        for (auto it = sparse_.begin(); it != sparse_.end();) {
            if (static_cast<std::uint64_t>(*it) < size) {
                dense_[static_cast<std::size_t>(*it)] = true;
                it = sparse_.erase(it);
            } else {
                ++it;
            }
        }
    }

    std::vector<bool> dense_;
    std::unordered_set<std::int64_t> sparse_;
    std::size_t size_ = 0;
};

}  // namespace meshscope
