// Helpers for the monitor tests: healthy rank event sequences built from a real Plan, and compact summaries of
// findings so that table rows stay readable.
#pragma once

#include <QString>
#include <QStringList>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "meshscope/mesh/parallel_state.h"
#include "meshscope/mesh/plan.h"
#include "meshscope/monitor/event.h"
#include "meshscope/monitor/monitor.h"
#include "test_events.h"

namespace monitor_test {

using meshscope::Event;
using meshscope::Phase;
using meshscope::Status;

inline QString q(const std::string& text) {
    return QString::fromStdString(text);
}

// "kind:[r1,r2] kind:[r]" sorted the way Monitor::findings sorts them.
inline QString summary(const std::vector<meshscope::Finding>& findings) {
    QStringList parts;
    for (const auto& f : findings) {
        QStringList ranks;
        for (const auto r : f.ranks) ranks << QString::number(r);
        parts << q(std::string(meshscope::to_string(f.kind))) + ":[" + ranks.join(',') + "]";
    }
    return parts.join(' ');
}

struct JobShape {
    std::string job = "job";
    std::int64_t dp = 8, cp = 2, ep = 2;
    std::int64_t gpus_per_node = 8;
    std::int64_t mp_replicate = 1;  // LlamaFactory's model mesh (mp_replicate, world / mp_replicate)
};

// The events a healthy FSDPTurbo rank sends, phase by phase, 1 s per phase from `t0` (sender's clock):
// launch, process_group, device_mesh (model, data and expert meshes), parallel_state with topology and every group,
// communicator, ready. Groups come from the real Plan (DeviceMesh layout).
inline std::vector<Event> rank_events(const JobShape& shape, std::int64_t rank, double t0 = 0) {
    const auto topology =
        meshscope::Topology::make(shape.dp, shape.cp, shape.ep, {shape.mp_replicate, std::nullopt}).value();
    const auto plan = meshscope::Plan::make(topology, shape.gpus_per_node).value();
    std::vector<Event> out;
    double t = t0;
    auto add = [&](Phase phase, Status status) -> Event& {
        Event e = meshscope::test::event(shape.job, rank, topology.world(), phase, status);
        e.ts = t;
        e.host = "node-" + std::to_string(rank / shape.gpus_per_node);
        e.pid = 1000 + rank;
        e.local_rank = rank % shape.gpus_per_node;
        out.push_back(e);
        return out.back();
    };
    for (Phase phase :
         {Phase::launch, Phase::process_group, Phase::device_mesh, Phase::parallel_state, Phase::communicator}) {
        add(phase, Status::started);
        t += 1;
        Event& done = add(phase, Status::done);
        if (phase == Phase::parallel_state) {
            done.topology = meshscope::ReportedTopology{shape.dp, shape.cp, shape.ep};
            for (const auto& pm : plan.meshes())
                for (std::size_t d = 0; d < pm.mesh.ndim(); ++d)
                    done.groups[pm.mesh.dim_names()[d]] = meshscope::Group::from(pm.mesh.group_of(rank, d));
        }
        if (phase == Phase::device_mesh) {
            // One event per mesh, in creation order (model, data, expert).
            const Event first = done;
            for (std::size_t m = 0; m < plan.meshes().size(); ++m) {
                const auto& pm = plan.meshes()[m];
                Event& event = m == 0 ? out.back() : out.emplace_back(first);
                event.mesh = meshscope::ReportedMesh{pm.name, pm.mesh.dim_names(), pm.mesh.shape()};
            }
        }
    }
    add(Phase::ready, Status::done);
    return out;
}

// Every rank's events, rank by rank; `edit` may change each rank's sequence (inject a fault).
inline std::vector<Event> job_events(const JobShape& shape,
                                     const std::function<void(std::int64_t, std::vector<Event>&)>& edit = {}) {
    std::vector<Event> all;
    const std::int64_t world = shape.dp * shape.cp;
    for (std::int64_t r = 0; r < world; ++r) {
        auto events = rank_events(shape, r);
        if (edit) edit(r, events);
        all.insert(all.end(), events.begin(), events.end());
    }
    return all;
}

inline Event* find_event(std::vector<Event>& events, Phase phase, Status status) {
    for (auto& e : events)
        if (e.phase == phase && e.status == status) return &e;
    return nullptr;
}

}  // namespace monitor_test
