#include "meshscope/mesh/device_mesh.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "meshscope/mesh/python_repr.h"
#include "meshscope/mesh/topology.h"

namespace meshscope {

namespace {

// One digit of a mixed-radix count: `size` values, each moving a row's `column` by `step`.
struct CountDigit {
    std::int64_t size;
    std::int64_t step;
    std::size_t column;
};

// Writes every row of a mixed-radix count, outermost digit first, `width` values a row. Row 0 is zeros; each
// digit, innermost first, copies the rows written so far size - 1 times, adding step * v to its column. Every
// value is written once from a block already written, at memory speed and with no division per row. Rows are
// copied in chunks small enough that adding to the column touches cache, not memory, a second time.
void count_by_replication(std::span<std::int64_t> out, std::size_t width, std::span<const CountDigit> innermost_first) {
    std::int64_t* const first = out.data();
    std::fill_n(first, width, std::int64_t{0});
    const std::size_t chunk = width * 1024;
    std::size_t rows = 1;
    for (const CountDigit& digit : innermost_first) {
        const std::size_t block = rows * width;
        for (std::int64_t v = 1; v < digit.size; ++v) {
            std::int64_t* const dst = first + static_cast<std::size_t>(v) * block;
            const std::int64_t add = v * digit.step;
            if (width == 1) {
                for (std::size_t i = 0; i < block; ++i) dst[i] = first[i] + add;
                continue;
            }
            for (std::size_t begin = 0; begin < block; begin += chunk) {
                const std::size_t end = std::min(block, begin + chunk);
                std::copy(first + begin, first + end, dst + begin);
                if (add != 0)
                    for (std::size_t i = begin + digit.column; i < end; i += width) dst[i] += add;
            }
        }
        rows *= static_cast<std::size_t>(digit.size);
    }
}

void require_size(std::span<const std::int64_t> out, std::size_t expected, const char* what) {
    if (out.size() != expected)
        throw std::length_error(std::string(what) + " needs a table of " + std::to_string(expected) + " values, got " +
                                std::to_string(out.size()) + ".");
}

}  // namespace

std::string_view to_string(CreationOrder order) noexcept {
    return order == CreationOrder::torch28 ? "torch28" : "torch29";
}

std::optional<CreationOrder> parse_creation_order(std::string_view text) noexcept {
    if (text == "torch29") return CreationOrder::torch29;
    if (text == "torch28") return CreationOrder::torch28;
    return std::nullopt;
}

Expected<DeviceMesh> DeviceMesh::make(std::vector<std::int64_t> shape, std::vector<std::string> dim_names,
                                      std::int64_t world_size) {
    const std::set<std::string> unique(dim_names.begin(), dim_names.end());
    if (unique.size() != dim_names.size())
        return RuntimeError("Each mesh_dim_name must be unique. Found repeated mesh_dim_name in mesh_dim_names " +
                            repr::str_tuple(dim_names));
    if (shape.size() != dim_names.size())
        return RuntimeError("mesh_shape and mesh_dim_names should have same length! Found len(mesh_dim_names): " +
                            std::to_string(dim_names.size()) + " and len(mesh_shape):" + std::to_string(shape.size()) +
                            ".");
    if (shape.empty()) return ValueError("mesh_shape must have at least one dimension.");
    std::int64_t size = 1;
    for (std::int64_t extent : shape) {
        if (extent < 1) return ValueError("mesh_shape must be positive, got " + repr::int_tuple(shape) + ".");
        if (extent > max_world_size / size)
            return ValueError("mesh_shape " + repr::int_tuple(shape) + " exceeds the supported maximum of " +
                              std::to_string(max_world_size) + " ranks.");
        size *= extent;
    }
    if (world_size == 0) world_size = size;
    if (size > world_size)
        return RuntimeError("Mesh should not be bigger than default world size " + std::to_string(world_size) +
                            ", but found " + std::to_string(size) + " ranks!");

    DeviceMesh mesh;
    mesh.size_ = size;
    mesh.world_size_ = world_size;
    std::int64_t stride = size;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        stride /= shape[i];
        mesh.axes_.push_back(Axis{dim_names[i], {Mode{shape[i], stride}}, shape[i], true});
        mesh.visible_.push_back(i);
    }
    return mesh;
}

std::vector<std::string> DeviceMesh::dim_names() const {
    std::vector<std::string> names;
    for (std::size_t pos : visible_) names.push_back(axes_[pos].name);
    return names;
}

std::vector<std::int64_t> DeviceMesh::shape() const {
    std::vector<std::int64_t> out;
    for (std::size_t pos : visible_) out.push_back(axes_[pos].size);
    return out;
}

Expected<std::size_t> DeviceMesh::dim_index(std::string_view name) const {
    for (std::size_t d = 0; d < visible_.size(); ++d)
        if (axes_[visible_[d]].name == name) return d;
    const auto names = dim_names();
    return KeyError("Mesh dimension '" + std::string(name) +
                    "' does not exist. Available mesh dimensions are: mesh_dim_names=" + repr::str_tuple(names));
}

std::int64_t DeviceMesh::axis_coordinate(const Axis& axis, Rank rank) const {
    std::int64_t c = 0;
    for (const Mode& mode : axis.modes) c = c * mode.size + (rank / mode.stride) % mode.size;
    return c;
}

std::int64_t DeviceMesh::axis_offset(const Axis& axis, std::int64_t coordinate) const {
    std::int64_t offset = 0;
    for (auto mode = axis.modes.rbegin(); mode != axis.modes.rend(); ++mode) {
        offset += (coordinate % mode->size) * mode->stride;
        coordinate /= mode->size;
    }
    return offset;
}

std::vector<std::int64_t> DeviceMesh::coordinate(Rank rank) const {
    std::vector<std::int64_t> out;
    out.reserve(visible_.size());
    for (std::size_t pos : visible_) out.push_back(axis_coordinate(axes_[pos], rank));
    return out;
}

std::int64_t DeviceMesh::coordinate(Rank rank, std::size_t dim) const {
    return axis_coordinate(axis(dim), rank);
}

DeviceMesh::Rank DeviceMesh::rank_at(std::span<const std::int64_t> coordinate) const {
    Rank rank = 0;
    for (std::size_t d = 0; d < visible_.size() && d < coordinate.size(); ++d)
        rank += axis_offset(axis(d), coordinate[d]);
    return rank;
}

std::vector<std::size_t> DeviceMesh::other_axes(std::size_t axis_pos, CreationOrder order) const {
    std::vector<std::size_t> positions(axes_.size());
    for (std::size_t i = 0; i < positions.size(); ++i) positions[i] = i;
    // swapdims(-1, d) puts the last dim where d was; reshape(-1, n) then walks the rest in that order.
    // A flattened mesh's groups come from permute(...).reshape and stay lexicographic.
    if (order == CreationOrder::torch28 && !flattened_) std::swap(positions[axis_pos], positions.back());
    positions.erase(std::find(positions.begin(), positions.end(), axis_pos));
    return positions;
}

std::vector<DeviceMesh::Rank> DeviceMesh::member_offsets(const Axis& axis) const {
    std::vector<Rank> out(static_cast<std::size_t>(axis.size));
    if (axis.modes.size() == 1) {
        const std::int64_t stride = axis.modes.front().stride;
        for (std::int64_t c = 0; c < axis.size; ++c) out[static_cast<std::size_t>(c)] = c * stride;
    } else {
        for (std::int64_t c = 0; c < axis.size; ++c) out[static_cast<std::size_t>(c)] = axis_offset(axis, c);
    }
    return out;
}

std::vector<DeviceMesh::Mode> DeviceMesh::group_digits(std::size_t axis_pos, CreationOrder order) const {
    // A flattened axis counts lexicographically over its modes, so expanding every axis into its modes keeps
    // the order and makes every odometer step a single stride.
    std::vector<Mode> digits;
    for (std::size_t pos : other_axes(axis_pos, order))
        for (const Mode& mode : axes_[pos].modes)
            if (mode.size > 1) digits.push_back(mode);
    return digits;
}

template <typename Emit>
void DeviceMesh::walk_groups(std::size_t dim, CreationOrder order, Emit&& emit) const {
    const auto digits = group_digits(visible_.at(dim), order);
    std::vector<std::int64_t> counter(digits.size(), 0);
    const std::int64_t count = group_count(dim);
    Rank base = 0;
    for (std::int64_t index = 0; index < count; ++index) {
        emit(index, base);
        for (std::size_t k = digits.size(); k-- > 0;) {
            base += digits[k].stride;
            if (++counter[k] < digits[k].size) break;
            base -= digits[k].size * digits[k].stride;
            counter[k] = 0;
        }
    }
}

std::vector<DeviceMesh::Rank> DeviceMesh::group_of(Rank rank, std::size_t dim) const {
    const Axis& a = axis(dim);
    const Rank base = rank - axis_offset(a, axis_coordinate(a, rank));
    std::vector<Rank> out = member_offsets(a);
    for (Rank& member : out) member += base;
    return out;
}

std::int64_t DeviceMesh::group_index(Rank rank, std::size_t dim, CreationOrder order) const {
    std::int64_t index = 0;
    for (std::size_t pos : other_axes(visible_.at(dim), order))
        index = index * axes_[pos].size + axis_coordinate(axes_[pos], rank);
    return index;
}

std::vector<DeviceMesh::Rank> DeviceMesh::group(std::size_t dim, std::int64_t index, CreationOrder order) const {
    const auto others = other_axes(visible_.at(dim), order);
    Rank base = 0;
    for (auto pos = others.rbegin(); pos != others.rend(); ++pos) {
        const Axis& other = axes_[*pos];
        base += axis_offset(other, index % other.size);
        index /= other.size;
    }
    std::vector<Rank> out = member_offsets(axis(dim));
    for (Rank& member : out) member += base;
    return out;
}

void DeviceMesh::for_each_group(std::size_t dim, CreationOrder order, const GroupVisitor& visit) const {
    const auto offsets = member_offsets(axis(dim));
    std::vector<Rank> members(offsets.size());
    walk_groups(dim, order, [&](std::int64_t index, Rank base) {
        for (std::size_t c = 0; c < offsets.size(); ++c) members[c] = base + offsets[c];
        visit(index, members);
    });
}

void DeviceMesh::fill_group_table(std::size_t dim, CreationOrder order, std::span<Rank> out) const {
    require_size(out, static_cast<std::size_t>(size_), "fill_group_table");
    // Entry i * n + c is member c of group i: a mixed radix whose innermost digits are the member's modes and
    // whose outer digits are the other axes in creation order, each digit one stride in rank space.
    const Axis& a = axis(dim);
    std::vector<CountDigit> digits;
    for (auto mode = a.modes.rbegin(); mode != a.modes.rend(); ++mode)
        if (mode->size > 1) digits.push_back({mode->size, mode->stride, 0});
    const auto outer = group_digits(visible_.at(dim), order);
    for (auto mode = outer.rbegin(); mode != outer.rend(); ++mode) digits.push_back({mode->size, mode->stride, 0});
    count_by_replication(out, 1, digits);
}

Table<DeviceMesh::Rank> DeviceMesh::group_table(std::size_t dim, CreationOrder order) const {
    Table<Rank> table(static_cast<std::size_t>(size_));
    fill_group_table(dim, order, table);
    return table;
}

template <typename Emit>
void DeviceMesh::walk_coordinates(Emit&& emit) const {
    // The root dims are a mixed radix of the rank; every mode is one root dim. Counting ranks up with an
    // odometer over the modes (outermost first) moves each visible axis's coordinate by the mode's weight.
    struct Digit {
        std::int64_t size, stride, weight;
        std::size_t column;
        std::int64_t count = 0;
    };
    std::vector<Digit> digits;
    const std::size_t columns = visible_.size();
    for (std::size_t pos = 0; pos < axes_.size(); ++pos) {
        const Axis& a = axes_[pos];
        const auto visible = std::find(visible_.begin(), visible_.end(), pos);
        const std::size_t column =
            visible == visible_.end() ? columns : static_cast<std::size_t>(visible - visible_.begin());
        std::int64_t weight = 1;
        for (auto mode = a.modes.rbegin(); mode != a.modes.rend(); ++mode) {
            if (mode->size > 1) digits.push_back({mode->size, mode->stride, weight, column});
            weight *= mode->size;
        }
    }
    std::sort(digits.begin(), digits.end(), [](const Digit& x, const Digit& y) { return x.stride > y.stride; });

    std::vector<std::int64_t> current(columns + 1, 0);  // one spare column for hidden axes
    const std::span<const std::int64_t> coordinate(current.data(), columns);
    for (Rank r = 0; r < size_; ++r) {
        emit(r, coordinate);
        for (std::size_t k = digits.size(); k-- > 0;) {
            Digit& digit = digits[k];
            current[digit.column] += digit.weight;
            if (++digit.count < digit.size) break;
            current[digit.column] -= digit.size * digit.weight;
            digit.count = 0;
        }
    }
}

void DeviceMesh::fill_coordinate_table(std::span<std::int64_t> out) const {
    const std::size_t columns = visible_.size();
    require_size(out, static_cast<std::size_t>(size_) * columns, "fill_coordinate_table");
    // Rank r's row is r in the mixed radix of the root dims; each root dim is a mode of one axis and moves
    // that axis's column by the mode's weight (hidden axes move nothing).
    struct Weighted {
        std::int64_t stride;
        CountDigit digit;
    };
    std::vector<Weighted> modes;
    for (std::size_t pos = 0; pos < axes_.size(); ++pos) {
        const Axis& a = axes_[pos];
        const auto visible = std::find(visible_.begin(), visible_.end(), pos);
        const bool shown = visible != visible_.end();
        const auto column = shown ? static_cast<std::size_t>(visible - visible_.begin()) : 0;
        std::int64_t weight = 1;
        for (auto mode = a.modes.rbegin(); mode != a.modes.rend(); ++mode) {
            if (mode->size > 1) modes.push_back({mode->stride, {mode->size, shown ? weight : 0, column}});
            weight *= mode->size;
        }
    }
    std::sort(modes.begin(), modes.end(), [](const Weighted& x, const Weighted& y) { return x.stride < y.stride; });
    std::vector<CountDigit> digits;
    for (const Weighted& m : modes) digits.push_back(m.digit);
    count_by_replication(out, columns, digits);
}

Table<std::int64_t> DeviceMesh::coordinate_table() const {
    Table<std::int64_t> table(static_cast<std::size_t>(size_) * visible_.size());
    fill_coordinate_table(table);
    return table;
}

void DeviceMesh::for_each_coordinate(const CoordinateVisitor& visit) const {
    walk_coordinates([&visit](Rank rank, std::span<const std::int64_t> coordinate) { visit(rank, coordinate); });
}

std::vector<std::vector<DeviceMesh::Rank>> DeviceMesh::groups(std::size_t dim, CreationOrder order) const {
    std::vector<std::vector<Rank>> out;
    out.reserve(static_cast<std::size_t>(group_count(dim)));
    for_each_group(dim, order,
                   [&out](std::int64_t, std::span<const Rank> ranks) { out.emplace_back(ranks.begin(), ranks.end()); });
    return out;
}

Expected<DeviceMesh> DeviceMesh::slice(const std::vector<std::string>& names) const {
    const auto valid = dim_names();
    for (const auto& name : names)
        if (std::find(valid.begin(), valid.end(), name) == valid.end())
            return KeyError("Invalid mesh_dim_names " + repr::str_tuple(names) +
                            " specified. Valid mesh_dim_names are " + repr::str_list(valid) + ".");
    std::vector<std::vector<std::int64_t>> indices;
    std::int64_t current = -1;
    for (const auto& name : names) {
        const auto next = static_cast<std::int64_t>(*dim_index(name));
        indices.push_back({next});
        if (next <= current)
            return KeyError("Invalid mesh_dim_names " + repr::str_tuple(names) +
                            " specified. Found mesh dim indices to slice: " + repr::int_tuple_list(indices) +
                            ". Mesh dim indices should be in ascending order.");
        current = next;
    }
    if (names.empty()) return ValueError("mesh_dim_names to slice must not be empty.");
    DeviceMesh out = *this;
    out.visible_.clear();
    for (auto& a : out.axes_) a.visible = std::find(names.begin(), names.end(), a.name) != names.end();
    for (std::size_t i = 0; i < out.axes_.size(); ++i)
        if (out.axes_[i].visible) out.visible_.push_back(i);
    return out;
}

Expected<DeviceMesh> DeviceMesh::flatten(std::string name) const {
    const auto names = dim_names();
    if (name.empty()) {
        for (std::size_t i = 0; i < names.size(); ++i) name += (i ? "_" : "") + names[i];
    }
    // Flattening a 1-D mesh into its own name returns it unchanged, as in PyTorch.
    if (visible_.size() == 1 && names.front() == name) return *this;
    for (const auto& a : axes_)
        if (a.name == name)
            return ValueError(name +
                              " already exists for submesh of the root mesh. Please specify another valid "
                              "mesh_dim_name.");
    Axis merged{name, {}, 1, true};
    for (std::size_t pos : visible_) {
        merged.modes.insert(merged.modes.end(), axes_[pos].modes.begin(), axes_[pos].modes.end());
        merged.size *= axes_[pos].size;
    }
    DeviceMesh out;
    out.size_ = size_;
    out.world_size_ = world_size_;
    out.flattened_ = true;
    for (std::size_t i = 0; i < axes_.size(); ++i) {
        if (!axes_[i].visible) {
            out.axes_.push_back(axes_[i]);
        } else if (i == visible_.front()) {
            out.visible_.push_back(out.axes_.size());
            out.axes_.push_back(merged);
        }
    }
    return out;
}

}  // namespace meshscope
