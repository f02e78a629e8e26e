// Group: the members of one group of ranks, as a rank reports it (its line of a device mesh along one dim, or
// any process group it joined). Members form a set: the order they were reported in is not kept. A group is
// stored as (first, step, count) when evenly spaced, which every group along one dim of a device mesh is, so
// that a 16,384-rank job reporting its model mesh's mp_shard group (every rank) costs a few bytes per rank
// instead of the whole group; otherwise as a sorted list.
//
// On the wire ("groups" in meshscope.event/1, docs/protocol.md) a group is a list of ranks or
// {"first", "step", "count"}; to_json writes the object for evenly spaced groups of more than list_limit
// members, the reporters likewise.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace meshscope {

class Group {
public:
    // Evenly spaced groups of more members than this are written {"first", "step", "count"}.
    static constexpr std::int64_t list_limit = 16;

    Group() = default;  // no members
    // Implicit, so that an event's groups can be written as {{"ep", {1, 3}}}. Members must be distinct.
    Group(std::initializer_list<std::int64_t> members) : Group(from(members)) {}
    // Members in any order; duplicates were rejected by the parser.
    static Group from(std::span<const std::int64_t> members);
    // first + k * step for k < count.
    static Group progression(std::int64_t first, std::int64_t step, std::int64_t count);

    [[nodiscard]] std::int64_t size() const noexcept {
        return spaced_ ? count_ : static_cast<std::int64_t>(members_.size());
    }
    [[nodiscard]] bool empty() const noexcept { return size() == 0; }
    [[nodiscard]] bool evenly_spaced() const noexcept { return spaced_; }
    [[nodiscard]] std::int64_t step() const noexcept { return spaced_ ? step_ : 0; }  // 0 when not evenly spaced
    [[nodiscard]] bool contains(std::int64_t rank) const noexcept;
    // The index-th smallest member.
    [[nodiscard]] std::int64_t at(std::int64_t index) const noexcept {
        return spaced_ ? first_ + index * step_ : members_[static_cast<std::size_t>(index)];
    }
    [[nodiscard]] std::vector<std::int64_t> members() const;  // sorted
    [[nodiscard]] std::uint64_t hash() const noexcept { return hash_; }
    // "[0, 8]" or, for long groups, "[0, 2, 4, 6, ..., 4094] (2048 ranks)".
    [[nodiscard]] std::string text() const;

    friend bool operator==(const Group& a, const Group& b) noexcept {
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

// The wire form: a list of ranks, or {"first", "step", "count"} for an evenly spaced group of more than
// Group::list_limit members (found by nlohmann's ADL, so that `json j = event.groups` works).
void to_json(nlohmann::json& j, const Group& group);

}  // namespace meshscope
