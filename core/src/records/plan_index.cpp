#include <algorithm>
#include <map>

#include "meshscope/monitor/finding_text.h"
#include "records/diagnose_internal.h"

namespace meshscope::records {

namespace detail {

std::string dim_from_desc(std::string_view desc) {
    if (desc.starts_with("mesh_")) desc.remove_prefix(5);
    static constexpr std::string_view known[] = {"dp", "cp",        "edp",          "efsdp",
                                                 "ep", "expert_cp", "mp_replicate", "mp_shard"};
    for (const auto k : known)
        if (desc == k) return std::string(k);
    return {};
}

std::string members_text(std::span<const std::int64_t> members) {
    return Group::from(members).text();
}

std::string ranks_words(std::span<const std::int64_t> ranks) {
    return monitor::ranks_text(ranks);
}

std::vector<PlanIndex::Dim> PlanIndex::dims(std::string_view hint) const {
    // Dims that can hold the same members (dp and mp_shard are both the world when cp = 1) are tried in the order
    // a reader would name them: the hint, then the expert mesh, the data mesh, the model mesh.
    std::vector<Dim> out;
    for (const char* mesh_name : {"expert", "data", "model"}) {
        const PlanMesh* mesh = plan_.mesh(mesh_name);
        if (!mesh) continue;
        const auto names = mesh->mesh.dim_names();
        for (std::size_t d = 0; d < names.size(); ++d) out.push_back({mesh, d, names[d]});
    }
    std::stable_partition(out.begin(), out.end(), [&](const Dim& d) { return !hint.empty() && d.name == hint; });
    return out;
}

PlanPlace PlanIndex::place(const Dim& d, std::int64_t rank) const {
    return {d.mesh->name, d.name, d.mesh->mesh.group_index(rank, d.dim, plan_.order()),
            d.mesh->mesh.group_of(rank, d.dim)};
}

std::optional<PlanPlace> PlanIndex::exact(std::span<const std::int64_t> members, std::string_view hint) const {
    if (members.empty() || members.front() < 0 || members.back() >= world()) return std::nullopt;
    const auto n = static_cast<std::int64_t>(members.size());
    if (n == world() && hint.empty()) return PlanPlace{"world", "world", 0, {members.begin(), members.end()}};
    for (const Dim& d : dims(hint)) {
        if (d.mesh->mesh.dim_size(d.dim) != n) continue;
        PlanPlace p = place(d, members.front());
        if (std::equal(p.members.begin(), p.members.end(), members.begin(), members.end())) return p;
    }
    return std::nullopt;
}

std::optional<PlanPlace> PlanIndex::by_positions(std::int64_t size,
                                                 std::span<const std::pair<std::int64_t, std::int64_t>> seen,
                                                 std::string_view hint) const {
    if (seen.empty()) return std::nullopt;
    const std::int64_t anchor = seen.front().second;
    if (anchor < 0 || anchor >= world()) return std::nullopt;
    if (size == world() && hint.empty()) {
        const bool identity = std::all_of(seen.begin(), seen.end(), [](const auto& s) { return s.first == s.second; });
        if (identity) {
            PlanPlace p{"world", "world", 0, {}};
            for (std::int64_t r = 0; r < size; ++r) p.members.push_back(r);
            return p;
        }
    }
    for (const Dim& d : dims(hint)) {
        if (d.mesh->mesh.dim_size(d.dim) != size) continue;
        PlanPlace p = place(d, anchor);
        const bool fits = std::all_of(seen.begin(), seen.end(), [&](const auto& s) {
            return s.first >= 0 && s.first < size && p.members[static_cast<std::size_t>(s.first)] == s.second;
        });
        if (fits) return p;
    }
    return std::nullopt;
}

std::optional<PlanPlace> PlanIndex::along(std::string_view dim, std::int64_t rank) const {
    if (dim.empty() || rank < 0 || rank >= world()) return std::nullopt;
    for (const Dim& d : dims(dim))
        if (d.name == dim) return place(d, rank);
    return std::nullopt;
}

std::pair<std::optional<PlanPlace>, std::int64_t> PlanIndex::nearest(std::span<const std::int64_t> seen) const {
    std::optional<PlanPlace> best;
    std::int64_t best_shared = 0;
    std::size_t anchors = 0;
    for (const std::int64_t r : seen) {
        if (r < 0 || r >= world()) continue;
        if (++anchors > 64) break;  // bounded: a group sharing most ranks holds one of the first few
        for (const Dim& d : dims({})) {
            PlanPlace p = place(d, r);
            std::int64_t shared = 0;
            for (const std::int64_t s : seen) shared += std::binary_search(p.members.begin(), p.members.end(), s);
            const bool better =
                shared > best_shared || (shared == best_shared && best && p.members.size() < best->members.size());
            if (better) {
                best = std::move(p);
                best_shared = shared;
            }
        }
    }
    return {best, best_shared};
}

std::string PlanIndex::layout_text() const {
    return "(dp, cp, ep) = " + plan_.topology().tuple_string();
}

std::vector<Topology> explaining_layouts(std::int64_t world, const std::vector<std::vector<std::int64_t>>& groups,
                                         const std::vector<NamedGroup>& named) {
    std::map<std::string, std::size_t> dim_size;
    for (const auto& g : named) dim_size[g.dim] = std::max(dim_size[g.dim], g.seen.size());
    std::vector<Topology> out;
    if (world <= 0 || world > (1 << 16)) return out;
    for (std::int64_t cp = 1; cp <= world; ++cp) {
        if (world % cp) continue;
        const std::int64_t dp = world / cp;
        for (std::int64_t ep = 1; ep <= dp; ++ep) {
            if (dp % ep) continue;
            auto topology = Topology::make(dp, cp, ep);
            if (!topology) continue;
            auto plan = Plan::make(*topology, 8);
            if (!plan) continue;
            const PlanIndex index(*plan);
            const bool all = std::all_of(groups.begin(), groups.end(),
                                         [&](const auto& g) { return index.exact(g, {}).has_value(); });
            const bool named_fit = std::all_of(named.begin(), named.end(), [&](const NamedGroup& g) {
                const auto p = g.seen.empty() ? std::nullopt : index.along(g.dim, g.seen.front());
                return p && p->members.size() == dim_size[g.dim] &&
                       std::includes(p->members.begin(), p->members.end(), g.seen.begin(), g.seen.end());
            });
            if (all && named_fit) out.push_back(*topology);
        }
    }
    return out;
}

}  // namespace detail

std::string PlanPlace::label() const {
    if (mesh == "world") return "world group " + detail::members_text(members);
    return dim + " group " + std::to_string(index) + " " + detail::members_text(members);
}

std::string ObservedGroup::label() const {
    if (place) return place->label();
    return source == "Flight Recorder"
               ? id + " " + detail::members_text(seen)
               : "communicator " + id + " (" + std::to_string(size) + (size == 1 ? " rank)" : " ranks)");
}

}  // namespace meshscope::records
