// ParallelState: LlamaFactory FSDPTurbo's process-wide parallel state, with its exact semantics and
// messages, made safer: a failed initialize changes nothing (strong guarantee), reset() tears down, and
// concurrent initializers are serialized (one topology wins; the others return or get the exact error).
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "meshscope/mesh/device_mesh.h"
#include "meshscope/mesh/topology.h"

namespace meshscope {

// One process group created while building a mesh, reported in creation order.
struct GroupCreated {
    std::string_view mesh;  // "expert"
    std::string_view dim;   // "efsdp"
    std::int64_t index;     // position in this dim's creation order
    std::int64_t count;     // groups along this dim
    std::span<const std::int64_t> ranks;
};

// What FSDPTurbo reads from LlamaFactory's DistributedInterface.
struct ParallelContext {
    std::int64_t dp_size = 1;   // dist_interface.get_world_size(Dim.DP)
    std::int64_t cp_size = 1;   // dist_interface.strategy.cp_size
    bool has_data_mesh = true;  // dist_interface.get_device_mesh(Dim.DP) is not None
    CreationOrder order = CreationOrder::torch29;
    // Told about every group of the expert mesh, in the order every rank creates them. May throw: the
    // state then stays exactly as it was. Must not call back into the parallel state.
    std::function<void(const GroupCreated&)> on_group_created;
};

// FSDPTurbo's dist_config.
struct ParallelConfig {
    std::int64_t ep_size = 1;
};

class ParallelState {
public:
    static constexpr std::string_view edp = "edp";
    static constexpr std::string_view efsdp = "efsdp";
    static constexpr std::string_view ep = "ep";
    static constexpr std::string_view expert_cp = "expert_cp";
    static constexpr std::string_view expert_mesh_name = "expert";

    // FSDPTurbo's initialize(): validation, then the same topology again is a no-op, a different one throws
    // RuntimeError, ep > 1 builds the expert mesh (and needs a data mesh), ep == 1 builds none.
    void initialize(const ParallelContext& context, const ParallelConfig& config);
    // Tears the state down so the process can initialize again with another topology.
    void reset();

    [[nodiscard]] bool initialized() const;
    [[nodiscard]] std::optional<Topology> topology() const;
    [[nodiscard]] std::optional<DeviceMesh> expert_mesh() const;
    // The 1-D sub-mesh of the expert mesh for "edp", "efsdp", "ep" or "expert_cp".
    [[nodiscard]] std::optional<DeviceMesh> submesh(std::string_view dim) const;

private:
    struct Snapshot {
        Topology topology;
        std::optional<DeviceMesh> expert_mesh;
    };
    mutable std::mutex mutex_;
    std::optional<Snapshot> state_;
};

// The process-wide instance, as get_fsdpturbo_parallel_state() returns it.
[[nodiscard]] ParallelState& parallel_state();

// The expert mesh FSDPTurbo builds: shape (edp, efsdp, ep, cp), dims (edp, efsdp, ep, expert_cp).
[[nodiscard]] Expected<DeviceMesh> make_expert_mesh(const Topology& topology);
// LlamaFactory's data mesh: shape (dp, cp), dims (dp, cp).
[[nodiscard]] Expected<DeviceMesh> make_data_mesh(const Topology& topology);

}  // namespace meshscope
