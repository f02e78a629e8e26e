// DeviceMesh: PyTorch's torch.distributed.DeviceMesh layout, groups and group-creation order, without ranks
// or tensors. A mesh is seen globally (every rank at once), so a slice keeps the dims it hides: they
// enumerate the many sub-meshes that PyTorch hands to different ranks.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "meshscope/mesh/error.h"
#include "meshscope/mesh/table.h"

namespace meshscope {

// The order in which every rank creates the groups of one dim (NCCL needs it identical everywhere).
enum class CreationOrder {
    torch29,  // PyTorch >= 2.9: lexicographic over the other dims
    torch28,  // PyTorch <= 2.8: rows of mesh.swapdims(-1, d).reshape(-1, shape[d])
};

[[nodiscard]] std::string_view to_string(CreationOrder order) noexcept;
[[nodiscard]] std::optional<CreationOrder> parse_creation_order(std::string_view text) noexcept;

class DeviceMesh {
public:
    using Rank = std::int64_t;
    using GroupVisitor = std::function<void(std::int64_t index, std::span<const Rank> ranks)>;

    // init_device_mesh(mesh_shape, mesh_dim_names) with PyTorch's checks and messages. world_size is the
    // default group's size; 0 means "as large as the mesh". A mesh smaller than the world is allowed.
    [[nodiscard]] static Expected<DeviceMesh> make(std::vector<std::int64_t> shape, std::vector<std::string> dim_names,
                                                   std::int64_t world_size = 0);

    [[nodiscard]] std::size_t ndim() const noexcept { return visible_.size(); }
    [[nodiscard]] std::vector<std::string> dim_names() const;
    [[nodiscard]] std::vector<std::int64_t> shape() const;
    [[nodiscard]] std::int64_t dim_size(std::size_t dim) const { return axis(dim).size; }
    // Ranks covered by the root mesh (all sub-meshes of a slice together).
    [[nodiscard]] std::int64_t size() const noexcept { return size_; }
    [[nodiscard]] std::int64_t world_size() const noexcept { return world_size_; }
    [[nodiscard]] bool is_flattened() const noexcept { return flattened_; }

    // The index of a dim by name; KeyError with PyTorch's text when absent.
    [[nodiscard]] Expected<std::size_t> dim_index(std::string_view name) const;
    // Ranks outside the mesh (it may be smaller than the world) have no coordinate.
    [[nodiscard]] bool contains(Rank rank) const noexcept { return rank >= 0 && rank < size_; }
    [[nodiscard]] std::vector<std::int64_t> coordinate(Rank rank) const;
    [[nodiscard]] std::int64_t coordinate(Rank rank, std::size_t dim) const;
    // The rank at a coordinate of a root mesh (each dim is one stride).
    [[nodiscard]] Rank rank_at(std::span<const std::int64_t> coordinate) const;

    // Every dim yields size() / dim_size(dim) groups, size-1 dims included.
    [[nodiscard]] std::int64_t group_count(std::size_t dim) const { return size_ / dim_size(dim); }
    // The members of rank's group along dim, by increasing coordinate, without building the other groups.
    [[nodiscard]] std::vector<Rank> group_of(Rank rank, std::size_t dim) const;
    // Where rank's group comes in the creation order of dim's groups.
    [[nodiscard]] std::int64_t group_index(Rank rank, std::size_t dim, CreationOrder order) const;
    // The index-th group along dim in creation order.
    [[nodiscard]] std::vector<Rank> group(std::size_t dim, std::int64_t index, CreationOrder order) const;
    // All groups along dim in creation order; visits reuse one buffer so huge meshes stay in bounded memory.
    void for_each_group(std::size_t dim, CreationOrder order, const GroupVisitor& visit) const;
    [[nodiscard]] std::vector<std::vector<Rank>> groups(std::size_t dim, CreationOrder order) const;
    // The same groups as one flat table, group i at [i * dim_size(dim), (i + 1) * dim_size(dim)): one allocation
    // however many groups (a size-1 dim of 2^20 ranks has 2^20 of them).
    [[nodiscard]] Table<Rank> group_table(std::size_t dim, CreationOrder order) const;
    // Every rank's coordinate, rank-major: rank r's coordinate along dim d is at [r * ndim() + d]. Both tables
    // are counted by replicating blocks, without a division per rank.
    [[nodiscard]] Table<std::int64_t> coordinate_table() const;
    // The same tables written into memory the caller owns and reuses (fresh memory costs a page fault per
    // page, which at 2^20 ranks costs more than the counting). A table of the wrong size throws
    // std::length_error ("fill_group_table needs a table of 16 values, got 15.").
    void fill_group_table(std::size_t dim, CreationOrder order, std::span<Rank> out) const;
    void fill_coordinate_table(std::span<std::int64_t> out) const;
    // Every rank's coordinate in rank order, counted like coordinate_table() but handed out one rank at a time
    // from one reused buffer: what a writer that streams a plan needs, in bounded memory at any world size.
    using CoordinateVisitor = std::function<void(Rank rank, std::span<const std::int64_t> coordinate)>;
    void for_each_coordinate(const CoordinateVisitor& visit) const;

    // mesh["a", "b"]: names must exist and be in ascending dim order (PyTorch's KeyError texts).
    // The slice reuses the parent's groups: group membership and order along kept dims are unchanged.
    [[nodiscard]] Expected<DeviceMesh> slice(const std::vector<std::string>& names) const;
    // mesh._flatten(name): one dim over all of this mesh's dims, ranks in lexicographic order of the
    // flattened coordinates, groups in lexicographic order of the remaining root dims. Default name joins
    // the dim names with "_".
    [[nodiscard]] Expected<DeviceMesh> flatten(std::string name = {}) const;

private:
    struct Mode {
        std::int64_t size;
        std::int64_t stride;
    };
    // One root-level dim, or several when flattened; hidden axes enumerate sub-meshes of a slice.
    struct Axis {
        std::string name;
        std::vector<Mode> modes;  // outermost first; the last varies fastest
        std::int64_t size;
        bool visible;
    };

    DeviceMesh() = default;
    [[nodiscard]] const Axis& axis(std::size_t dim) const { return axes_[visible_.at(dim)]; }
    [[nodiscard]] std::int64_t axis_coordinate(const Axis& axis, Rank rank) const;
    [[nodiscard]] std::int64_t axis_offset(const Axis& axis, std::int64_t coordinate) const;
    // The axes other than `axis_pos`, outermost first, in the order their groups are created.
    [[nodiscard]] std::vector<std::size_t> other_axes(std::size_t axis_pos, CreationOrder order) const;
    // The offsets of an axis's members from its first member, by coordinate.
    [[nodiscard]] std::vector<Rank> member_offsets(const Axis& axis) const;
    // The modes of the other axes, outermost first in creation order, size-1 modes left out: an odometer over
    // them visits the groups of axis_pos in creation order, each step one stride.
    [[nodiscard]] std::vector<Mode> group_digits(std::size_t axis_pos, CreationOrder order) const;
    // Calls emit(index, base) for every group of dim in creation order; base is the group's first member.
    template <typename Emit>
    void walk_groups(std::size_t dim, CreationOrder order, Emit&& emit) const;
    // Counts through every rank, calling emit(rank, coordinate) with the visible coordinate (ndim() values).
    template <typename Emit>
    void walk_coordinates(Emit&& emit) const;

    std::vector<Axis> axes_;
    std::vector<std::size_t> visible_;
    std::int64_t size_ = 0;
    std::int64_t world_size_ = 0;
    bool flattened_ = false;
};

}  // namespace meshscope
