// LlamaFactory's model mesh in the monitor: a rank's (mp_replicate, mp_shard) counts as a report of the
// "model" mesh, whether it came as a `device_mesh` event's mesh or inside `topology`, and is judged like
// the other meshes (topology_mismatch on "mesh/model"; its groups against the reference's model mesh).
#pragma once

#include <optional>

#include "meshscope/mesh/model_mesh.h"
#include "meshscope/monitor/event.h"
#include "monitor/job.h"

namespace meshscope::monitor {

// The aspect name of the model mesh ("mesh/model").
[[nodiscard]] std::string model_aspect_name();

// The "model" mesh a topology with mp sizes describes; nullopt without them.
[[nodiscard]] std::optional<ReportedMesh> model_mesh_of(const ReportedTopology& topology);

// The shape of a reported "model" mesh with LlamaFactory's dim names; nullopt for any other mesh.
[[nodiscard]] std::optional<ModelMeshShape> model_shape_of(const ReportedMesh& mesh);

// Whether `dim` is one of the model mesh's dims (mp_replicate, mp_shard).
[[nodiscard]] bool is_model_dim(const std::string& dim);

// Whether the rank reported a model mesh other than the job's reference one (it then has a topology_mismatch
// on "mesh/model", and its model groups follow from that mesh: they are not reported twice).
[[nodiscard]] bool model_mesh_differs(const Job& job, const RankRecord& record);

// What puts a rank in its expected group along `dim`, for a finding: "(dp, cp, ep) = (8, 2, 2)" or, for a model
// dim, "the model mesh (mp_replicate, mp_shard) = (2, 8)". Needs the job's reference topology.
[[nodiscard]] std::string layout_text(const Job& job, const std::string& dim);

// The (dp, cp, ep) parts equal: the FSDPTurbo meshes follow from them alone.
[[nodiscard]] bool same_fsdpturbo_topology(const ReportedTopology& a, const ReportedTopology& b) noexcept;

}  // namespace meshscope::monitor
