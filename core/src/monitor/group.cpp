#include "meshscope/monitor/group.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace meshscope {

namespace {
std::uint64_t mix(std::uint64_t h, std::uint64_t v) noexcept {
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h;
}
}  // namespace

Group Group::progression(std::int64_t first, std::int64_t step, std::int64_t count) {
    Group g;
    g.first_ = first;
    g.step_ = count > 1 ? step : 1;  // canonical form: a single member has step 1
    g.count_ = count;
    if (count == 0) g.first_ = 0;
    g.rehash();
    return g;
}

Group Group::from(std::span<const std::int64_t> members) {
    std::vector<std::int64_t> sorted;
    std::span<const std::int64_t> view = members;
    if (!std::is_sorted(members.begin(), members.end())) {
        sorted.assign(members.begin(), members.end());
        std::sort(sorted.begin(), sorted.end());
        view = sorted;
    }
    const auto n = static_cast<std::int64_t>(view.size());
    if (n <= 1) return progression(n ? view[0] : 0, 1, n);
    const std::int64_t step = view[1] - view[0];
    bool spaced = step > 0;
    for (std::size_t i = 2; spaced && i < view.size(); ++i) spaced = view[i] - view[i - 1] == step;
    if (spaced) return progression(view[0], step, n);
    Group g;
    g.spaced_ = false;
    g.members_.assign(view.begin(), view.end());
    g.rehash();
    return g;
}

bool Group::contains(std::int64_t rank) const noexcept {
    if (!spaced_) return std::binary_search(members_.begin(), members_.end(), rank);
    if (count_ == 0 || rank < first_) return false;
    const std::int64_t offset = rank - first_;
    return offset % step_ == 0 && offset / step_ < count_;
}

std::vector<std::int64_t> Group::members() const {
    if (!spaced_) return members_;
    std::vector<std::int64_t> out(static_cast<std::size_t>(count_));
    for (std::int64_t k = 0; k < count_; ++k) out[static_cast<std::size_t>(k)] = first_ + k * step_;
    return out;
}

std::string Group::text() const {
    const std::int64_t n = size();
    std::string out = "[";
    auto add = [&](std::int64_t k) {
        if (out.size() > 1) out += ", ";
        out += std::to_string(at(k));
    };
    if (n <= 12) {
        for (std::int64_t k = 0; k < n; ++k) add(k);
        return out + "]";
    }
    for (std::int64_t k = 0; k < 4; ++k) add(k);
    out += ", ...";
    add(n - 1);
    return out + "] (" + std::to_string(n) + " ranks)";
}

void Group::rehash() noexcept {
    // from() always picks the spaced form when it can, so equal members have equal fields and hashes.
    const std::int64_t n = size();
    if (n == 0) {  // as a default-constructed Group
        hash_ = 0;
        return;
    }
    std::uint64_t h = static_cast<std::uint64_t>(n);
    if (spaced_) {
        h = mix(h, static_cast<std::uint64_t>(first_));
        h = mix(h, static_cast<std::uint64_t>(step_));
    } else {
        for (std::int64_t k = 0; k < n; ++k) h = mix(h, static_cast<std::uint64_t>(at(k)));
    }
    hash_ = h;
}

void to_json(nlohmann::json& j, const Group& group) {
    if (group.evenly_spaced() && group.size() > Group::list_limit) {
        j = nlohmann::json{{"first", group.at(0)}, {"step", group.step()}, {"count", group.size()}};
        return;
    }
    j = nlohmann::json::array();
    for (std::int64_t k = 0; k < group.size(); ++k) j.push_back(group.at(k));
}

}  // namespace meshscope
