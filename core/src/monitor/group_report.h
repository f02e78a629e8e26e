// GroupReport: the members of one reported group, stored as (first, step, count) when evenly spaced (every
// group along one dim of a root device mesh is), so that a 16,384-rank job reporting its dp groups costs
// a few bytes per rank instead of the whole group.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace meshscope::monitor {

class GroupReport {
public:
    // Members in any order; duplicates were rejected by the parser.
    static GroupReport from(std::span<const std::int64_t> members);
    // first + k * step for k < count.
    static GroupReport progression(std::int64_t first, std::int64_t step, std::int64_t count);

    [[nodiscard]] std::int64_t size() const noexcept {
        return spaced_ ? count_ : static_cast<std::int64_t>(members_.size());
    }
    [[nodiscard]] bool contains(std::int64_t rank) const noexcept;
    [[nodiscard]] std::int64_t at(std::int64_t index) const noexcept {
        return spaced_ ? first_ + index * step_ : members_[static_cast<std::size_t>(index)];
    }
    [[nodiscard]] std::vector<std::int64_t> members() const;
    [[nodiscard]] std::uint64_t hash() const noexcept { return hash_; }
    // "[0, 8]" or, for long groups, "[0, 2, 4, 6, ..., 4094] (2048 ranks)".
    [[nodiscard]] std::string text() const;

    friend bool operator==(const GroupReport& a, const GroupReport& b) noexcept {
        return a.hash_ == b.hash_ && a.spaced_ == b.spaced_ && a.first_ == b.first_ && a.step_ == b.step_ &&
               a.count_ == b.count_ && a.members_ == b.members_;
    }

private:
    void rehash() noexcept;
    bool spaced_ = true;
    std::int64_t first_ = 0;
    std::int64_t step_ = 1;
    std::int64_t count_ = 0;
    std::vector<std::int64_t> members_;  // sorted, only when not evenly spaced
    std::uint64_t hash_ = 0;
};

}  // namespace meshscope::monitor
