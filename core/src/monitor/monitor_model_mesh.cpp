// The model mesh's reference and the expected plan built with it (see live/model_mesh_report.h).
#include "monitor/model_mesh_report.h"

#include "monitor/monitor_impl.h"

namespace meshscope {

namespace monitor {

std::string model_aspect_name() {
    return "mesh/" + std::string(model_mesh_name);
}

std::optional<ReportedMesh> model_mesh_of(const ReportedTopology& topology) {
    if (!topology.has_model_mesh()) return std::nullopt;
    return ReportedMesh{std::string(model_mesh_name),
                        {std::string(mp_replicate_dim), std::string(mp_shard_dim)},
                        {*topology.mp_replicate, *topology.mp_shard}};
}

std::optional<ModelMeshShape> model_shape_of(const ReportedMesh& mesh) {
    if (mesh.name != model_mesh_name || mesh.shape.size() != 2 || mesh.dim_names.size() != 2 ||
        mesh.dim_names[0] != mp_replicate_dim || mesh.dim_names[1] != mp_shard_dim)
        return std::nullopt;
    return ModelMeshShape{mesh.shape[0], mesh.shape[1]};
}

bool is_model_dim(const std::string& dim) {
    return dim == mp_replicate_dim || dim == mp_shard_dim;
}

bool model_mesh_differs(const Job& job, const RankRecord& record) {
    if (!job.reference_model) return false;
    const auto it = record.state.meshes.find(std::string(model_mesh_name));
    if (it == record.state.meshes.end()) return false;
    return model_shape_of(it->second) != job.reference_model;
}

std::string layout_text(const Job& job, const std::string& dim) {
    if (is_model_dim(dim) && job.reference_model) {
        std::string out = "the model mesh (mp_replicate, mp_shard) = (";
        out += std::to_string(job.reference_model->mp_replicate);
        out += ", ";
        out += std::to_string(job.reference_model->mp_shard);
        return out + ")";
    }
    return "(dp, cp, ep) = " + (job.reference_topology ? job.reference_topology->tuple_string() : std::string("?"));
}

bool same_fsdpturbo_topology(const ReportedTopology& a, const ReportedTopology& b) noexcept {
    return a.dp == b.dp && a.cp == b.cp && a.ep == b.ep;
}

}  // namespace monitor

void Monitor::Impl::set_reference_model(monitor::Job& job) {
    std::optional<ModelMeshShape> shape;
    const auto it = job.meshes.find(std::string(model_mesh_name));
    if (it != job.meshes.end() && !it->second.reference.empty()) {
        const monitor::Aspect& aspect = it->second;
        if (aspect.basis == monitor::Aspect::Basis::plan && job.plan) {
            shape = job.plan->topology().model_mesh();
        } else if (const auto holders = aspect.holders.find(aspect.reference); holders != aspect.holders.end()) {
            if (const monitor::RankRecord* holder = job.find(holders->second.front())) {
                const auto mesh = holder->state.meshes.find(std::string(model_mesh_name));
                if (mesh != holder->state.meshes.end()) shape = monitor::model_shape_of(mesh->second);
            }
        }
    }
    if (shape == job.reference_model) return;
    job.reference_model = shape;
    rebuild_expected(job);
}

void Monitor::Impl::rebuild_expected(monitor::Job& job) {
    job.expected.reset();
    job.expected_dims.clear();
    job.expected_has_model = false;
    if (const auto& topology = job.reference_topology) {
        const auto& plan = job.plan;
        if (plan &&
            monitor::same_fsdpturbo_topology(*topology,
                                             {plan->topology().dp, plan->topology().cp, plan->topology().ep}) &&
            (!job.reference_model || *job.reference_model == plan->topology().model_mesh())) {
            job.expected = plan;
            job.expected_has_model = job.reference_model.has_value();
        } else {
            // The model mesh when it fits the world, else without it (its dims are then judged by peers).
            ModelMeshSizes model;
            if (job.reference_model) model = {job.reference_model->mp_replicate, job.reference_model->mp_shard};
            auto t = Topology::make(topology->dp, topology->cp, topology->ep, model);
            job.expected_has_model = job.reference_model && t.has_value();
            if (!t && job.reference_model) t = Topology::make(topology->dp, topology->cp, topology->ep);
            // Placement does not change group membership; one node per world keeps Plan::make cheap to check.
            if (t)
                if (auto made = Plan::make(*t, t->world())) job.expected = std::move(made).value();
        }
    }
    job.all_groups_dirty = true;
}

}  // namespace meshscope
