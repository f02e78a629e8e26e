// meshscope-probe: builds a plan's real communicators on every rank and measures every group (docs/probe.md).
#include <unistd.h>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include <meshscope/client/reporter.h>
#include <nlohmann/json.hpp>

#include "meshscope/mesh/json_limits.h"
#include "meshscope/mesh/plan_json.h"
#include "src/gloo_backend.h"
#include "src/kv_client.h"
#include "src/local_launch.h"
#include "src/nccl_backend.h"
#include "src/probe_options.h"
#include "src/probe_run.h"
#include "version.h"

using namespace meshscope;
using namespace meshscope::probe;

namespace {
Expected<Plan> plan_for(const ProbeOptions& o) {
    if (!o.plan_file.empty()) {
        std::ifstream in(o.plan_file);
        if (!in) return ValueError("cannot read --plan " + o.plan_file);
        std::stringstream text;
        text << in.rdbuf();
        bool too_deep = false;
        const auto doc = parse_json_bounded(text.str(), &too_deep);
        if (too_deep) return ValueError("--plan " + o.plan_file + ": " + json_depth_text());
        if (doc.is_discarded()) return ValueError("--plan " + o.plan_file + " is not JSON");
        return plan_from_json(doc);
    }
    const auto order = parse_creation_order(o.order).value_or(CreationOrder::torch29);
    const std::int64_t cp = o.cp.value_or(1), ep = o.ep.value_or(1);
    auto topology = o.dp ? Topology::make(*o.dp, cp, ep) : Topology::from_world(o.world, cp, ep);
    if (!topology) return topology.error();
    return Plan::make(*topology, o.gpus_per_node, order);
}

std::string host_name() {
    char name[256] = {};
    return gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string();
}
}  // namespace

// long: the probe's command line, plan and run, each failure with its message and exit status; not yet split into
// arguments + validate + run
int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    auto parsed = parse_probe_options(args, [](const char* name) -> std::optional<std::string> {
        const char* v = std::getenv(name);
        return v ? std::optional<std::string>(v) : std::nullopt;
    });
    if (!parsed) {
        std::cerr << "meshscope-probe: " << parsed.error().message() << "\n";
        return exit_usage;
    }
    ProbeOptions o = *parsed;
    if (o.help) {
        std::cout << probe_usage;
        return exit_ok;
    }
    if (o.version) {
        std::cout << meshscope::app::version_line("meshscope-probe") << " (gloo; " << nccl_version_text() << ")\n";
        return exit_ok;
    }
    if (o.job.empty()) o.job = "probe-" + std::to_string(getpid()) + "-" + std::to_string(std::time(nullptr));

    if (o.local > 0) {
        // The ranks share this job id, collector and plan; each is a process of its own.
        std::vector<std::string> child;
        for (std::size_t i = 0; i < args.size(); ++i) {
            if (args[i] == "--local" || args[i] == "--job") {
                ++i;
                continue;
            }
            child.push_back(args[i]);
        }
        // Strings, not c_str()s: a temporary's c_str() in the range's braced list dies before the loop runs.
        for (std::string extra : {std::string("--job"), o.job, std::string("--bind"), o.bind_address,
                                  std::string("--gpus-per-node"), std::to_string(o.gpus_per_node)})
            child.push_back(std::move(extra));
        std::cout << "meshscope-probe: job " << o.job << ", " << o.local << " local ranks" << std::endl;
        return launch_local(argv[0], child, o.local);
    }

    auto plan = plan_for(o);
    if (!plan) {
        std::cerr << "meshscope-probe: " << plan.error().message() << "\n";
        return exit_usage;
    }
    if (plan->topology().world() != o.world) {
        std::cerr << "meshscope-probe: the plan covers " << plan->topology().world()
                  << " ranks, but the launcher started " << o.world << " (WORLD_SIZE)\n";
        return exit_usage;
    }
    const std::string host = host_name();
    if (o.bind_address.empty()) o.bind_address = host;

    try {
        CollectorKeyValue store(o.collector, o.token, o.job);
        std::unique_ptr<Backend> backend;
        if (o.backend == "nccl") {
            backend = make_nccl_backend(store, o.rank, o.world, o.local_rank);
        } else {
            GlooOptions g;
            g.bind_address = o.bind_address;
            g.slow_dim = o.slow_dim;
            g.slow_index = o.slow_index;
            g.slow_delay = o.slow_delay;
            backend = make_gloo_backend(store, g);
        }
        client::ReporterOptions ro;
        ro.url = o.collector;
        ro.token = o.token;
        ro.shutdown_timeout = std::chrono::milliseconds{5000};
        client::Reporter reporter(ro);
        RunSettings s;
        s.rank = o.rank;
        s.world = o.world;
        s.local_rank = o.local_rank;
        s.sizes = o.sizes;
        s.iters = o.iters;
        s.warmup = o.warmup;
        s.timeout = o.timeout;
        s.job = o.job;
        s.host = host;
        s.absent_dim = o.absent_dim;
        s.dump_dir = o.dump_dir;
        s.one_group_at_a_time = o.one_group_at_a_time;
        const int status = run_probe(
            *plan, s, store, *backend, [&](nlohmann::json e) { reporter.enqueue(o.rank, e.dump()); }, std::cout);
        std::cout.flush();
        reporter.flush(std::chrono::milliseconds{5000});
        return status;
    } catch (const Unavailable& e) {
        std::cerr << "meshscope-probe: " << e.what() << "\n";
        return exit_unavailable;
    } catch (const std::exception& e) {
        std::cerr << "meshscope-probe: rank " << o.rank << ": " << e.what() << "\n";
        return exit_failed;
    }
}
