#include "group_schedule.h"

#include <algorithm>

namespace meshscope::probe {

std::vector<GroupSpec> rank_schedule(const Plan& plan, std::int64_t rank) {
    std::vector<GroupSpec> schedule;
    std::int64_t created = 0;
    for (const PlanMesh& pm : plan.meshes()) {
        const DeviceMesh& mesh = pm.mesh;
        const auto names = mesh.dim_names();
        for (std::size_t d = 0; d < mesh.ndim(); ++d) {
            GroupSpec g;
            g.mesh = pm.name;
            g.dim = names[d];
            g.index = mesh.group_index(rank, d, plan.order());
            g.creation = created + g.index;
            g.color = g.index;
            g.members = mesh.group_of(rank, d);
            g.position =
                static_cast<std::size_t>(std::find(g.members.begin(), g.members.end(), rank) - g.members.begin());
            schedule.push_back(std::move(g));
            created += mesh.group_count(d);
        }
    }
    return schedule;
}

}  // namespace meshscope::probe
