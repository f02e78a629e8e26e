// meshscope calibrate: what a real job measured (a training log's step time, NCCL Inspector's bus bandwidths) fitted
// into the cost model's constants for that cluster, written as a meshscope.cluster-profile/1 that advise and check
// take with --cluster-profile; prints predicted against measured for the layout seen (docs/calibrate.md).
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "cli_support.h"
#include "commands.h"
#include "meshscope/cost/calibrate.h"
#include "meshscope/mesh/placement.h"
#include "model_options.h"

namespace meshscope::app {

namespace {
constexpr const char* usage_hint =
    "hint: meshscope calibrate [--log FILE --model NAME | --model-config FILE] [--nccl-inspector FILE ...] "
    "--world N [--cp C] [--ep E] [--gpus-per-node G] [--hardware NAME] [--network ndr|hdr] [--seq S] "
    "[--micro-batch B] [--grad-accum M] [--recompute MODE] [--overlap-a2a] [--out PROFILE.json]";

const Usage usage_error{"calibrate", usage_hint};

std::string format(const char* pattern, double value) {
    char text[64];
    std::snprintf(text, sizeof text, pattern, value);
    return text;
}
std::string layout_name(const Topology& t) {
    return "dp " + std::to_string(t.dp) + ", cp " + std::to_string(t.cp) + ", ep " + std::to_string(t.ep);
}
std::string pad_right(std::string text, std::size_t width) {
    if (text.size() < width) text.append(width - text.size(), ' ');
    return text;
}
std::string joined(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
    return out;
}
}  // namespace

// Everything `meshscope calibrate` reads from its command line.
struct CalibrateArguments {
    ModelOptions model;
    std::string log_path, out_path;
    std::vector<std::string> inspector_paths;
    std::string world_text, cp_text = "1", ep_text = "1", gpus_text;
    CLI::Option* world_option = nullptr;
    CLI::Option* gpus_option = nullptr;
    CLI::Option* hardware_option = nullptr;
};

namespace {
void add_calibrate_options(CLI::App& cli, CalibrateArguments& a) {
    a.model.add_to(cli);
    a.hardware_option = cli.get_option("--hardware");
    cli.add_option("--log", a.log_path,
                   "a training log: Hugging Face Trainer's output (its final train_runtime and "
                   "train_steps_per_second) or LlamaFactory's timestamped step lines")
        ->type_name("FILE");
    cli.add_option("--nccl-inspector", a.inspector_paths,
                   "NCCL Inspector output of the same job: its JSON lines or its Prometheus .prom file (repeatable)")
        ->type_name("FILE");
    a.world_option = cli.add_option("--world", a.world_text, "the run's world size (GPUs)")->type_name("INT");
    cli.add_option("--cp", a.cp_text, "the run's context-parallel size")->type_name("INT")->capture_default_str();
    cli.add_option("--ep", a.ep_text, "the run's expert-parallel size")->type_name("INT")->capture_default_str();
    a.gpus_option =
        cli.add_option(
               "--gpus-per-node", a.gpus_text,
               "GPUs per node (default: the hardware's, 8; gb200 keeps its 72-GPU NVLink domain whatever is given)")
            ->type_name("INT");
    cli.add_option("--out", a.out_path, "write the fitted meshscope.cluster-profile/1 here")->type_name("FILE");
}

// The usage error of the first bad or missing input; nullopt when the command can go on.
std::optional<std::string> validate(const CalibrateArguments& a) {
    if (a.log_path.empty() && a.inspector_paths.empty()) return "give --log or --nccl-inspector (or both)";
    if (!a.log_path.empty() && !a.model.requested()) return "--log needs --model or --model-config";
    if (!a.log_path.empty() && a.world_option->count() == 0) return "--log needs --world";
    if (!a.model.efficiency.empty())
        return "--efficiency cannot be combined with calibrate: it fits the calibration over the kernel curves";
    return std::nullopt;
}
}  // namespace

// long: the cluster, the run's layout, then the bandwidths and the calibration fitted and printed in order and the
// profile written; not yet split into stages
int run_calibrate(int argc, char** argv) {
    CLI::App cli{
        "Fit the cost model's compute calibration and link bandwidths to what a real job measured, and write them "
        "as a cluster profile for advise and check (--cluster-profile).",
        "meshscope calibrate"};
    CalibrateArguments a;
    add_calibrate_options(cli, a);
    if (const auto status = parse_or_usage(cli, argc, argv, usage_error)) return *status;
    if (auto problem = validate(a)) return usage_error(*problem);

    std::int64_t gpus_per_node = 0;
    if (a.gpus_option->count() > 0) {
        if (auto error = parse_int_option("--gpus-per-node", a.gpus_text, gpus_per_node)) return usage_error(*error);
        if (gpus_per_node < 1)
            return usage_error("gpus_per_node must be positive, got " + std::to_string(gpus_per_node) + ".");
    }
    auto made_cluster = cost::make_cluster(a.model.hardware, a.model.network, gpus_per_node);
    if (!made_cluster) return usage_error(made_cluster.error().message());
    const cost::ClusterSpec preset = std::move(made_cluster).value();
    cost::ClusterSpec cluster = preset;

    // The run's layout, to place the communicators on and to cost the step.
    std::optional<cost::RunLayout> layout;
    if (a.world_option->count() > 0) {
        std::int64_t world = 0, cp = 0, ep = 0;
        for (const auto& [flag, text, value] :
             {std::tuple{"--world", &a.world_text, &world}, std::tuple{"--cp", &a.cp_text, &cp},
              std::tuple{"--ep", &a.ep_text, &ep}})
            if (auto error = parse_int_option(flag, *text, *value)) return usage_error(*error);
        auto topology = Topology::from_world(world, cp, ep);
        if (!topology) return usage_error(topology.error().message());
        auto placement = Placement::make(world, cluster.gpus_per_node);
        if (!placement) return usage_error(placement.error().message());
        layout = cost::RunLayout{*topology, cost::mesh_dims(*topology, *placement)};
    }

    cost::ClusterProfile profile = cost::preset_profile(preset);
    std::ostream& out = std::cout;
    out << "cluster: " << preset.hardware << ", " << preset.gpus_per_node << " per node, " << preset.network;
    if (layout) out << "; the run: " << layout_name(layout->topology) << ", world " << layout->topology.world();
    out << "\n";

    // Bandwidths first: the step's communication is predicted from them.
    if (!a.inspector_paths.empty()) {
        std::vector<std::pair<std::string, cost::InspectorRead>> reads;
        for (const auto& path : a.inspector_paths) {
            auto read = cost::load_nccl_inspector(path);
            if (!read) return usage_error(read.error().message());
            out << "NCCL Inspector: " << path << " (" << read->format << ", " << read->samples.size()
                << " collective records"
                << (read->p2p > 0 ? ", " + std::to_string(read->p2p) + " Send/Recv not fitted" : "") << ")\n";
            reads.emplace_back(path, std::move(read).value());
        }
        const auto fit = cost::fit_bandwidths(reads, preset, layout);
        out << "  communicator                collective      ranks nodes samples  bus GB/s  placed on\n";
        for (const auto& c : fit.communicators) {
            out << "  " << pad_right(c.comm, 28) << pad_right(c.collective, 15) << format("%6.0f", double(c.nranks))
                << format("%6.0f", double(c.nnodes)) << format("%8.0f", double(c.samples))
                << (c.bus_gbps > 0 ? format("%10.1f", c.bus_gbps) : std::string("         -")) << "  "
                << (c.placed.empty() ? "not placed" : c.placed) << (c.why.empty() ? "" : " (" + c.why + ")") << "\n";
        }
        if (fit.latency_bound > 0)
            out << "  " << fit.latency_bound << " records no longer than the model's latency of their call: left out\n";
        const auto basis = [&](std::int64_t samples, const char* where) {
            return std::to_string(samples) + " " + where + " collective records from " + joined(a.inspector_paths);
        };
        if (fit.intra_gbps) {
            cluster.intra.bus_gbps = *fit.intra_gbps;
            profile.intra_node_gbps = {*fit.intra_gbps, cost::ConstantSource::fitted,
                                       basis(fit.intra_samples, "intra-node")};
        }
        if (fit.inter_gbps) {
            cluster.inter.bus_gbps = *fit.inter_gbps;
            profile.inter_node_gbps = {*fit.inter_gbps, cost::ConstantSource::fitted,
                                       basis(fit.inter_samples, "inter-node")};
        }
        out << "  NVLink: "
            << (fit.intra_gbps ? format("%.1f", *fit.intra_gbps) + " GB/s fitted" : std::string("no intra-node record"))
            << " (preset " << format("%g", preset.intra.bus_gbps) << ")\n";
        out << "  network: "
            << (fit.inter_gbps ? format("%.1f", *fit.inter_gbps) + " GB/s fitted" : std::string("no inter-node record"))
            << " (preset " << format("%g", preset.inter.bus_gbps) << ")\n";
        profile.communicators = fit.communicators;
    }

    if (!a.log_path.empty()) {
        const auto step = cost::load_training_log(a.log_path);
        if (!step) return usage_error(step.error().message());
        auto made = a.model.make_inputs(gpus_per_node);
        if (!made) return usage_error(made.error().message());
        auto in = std::move(made).value();
        const cost::LayoutCost at_presets = cost::cost_layout(in, layout->topology, layout->dims);
        in.cluster = cluster;
        auto fit = cost::fit_calibration(in, *layout, step->seconds);
        if (!fit) return usage_error(fit.error().message());
        profile.calibration = {fit->calibration, cost::ConstantSource::fitted,
                               "step time of " + layout_name(layout->topology) + " from " + a.log_path};
        cost::LayoutEvidence e;
        e.source = a.log_path;
        e.model = in.model.name;
        e.dp = layout->topology.dp;
        e.cp = layout->topology.cp;
        e.ep = layout->topology.ep;
        e.gpus_per_node = cluster.gpus_per_node;
        e.seq = in.training.seq;
        e.micro_batch = in.training.micro_batch;
        e.grad_accum = in.training.grad_accum;
        e.measured_seconds = step->seconds;
        e.preset_seconds = at_presets.step.seconds;
        e.predicted_seconds = fit->fitted.step.seconds;
        e.calibration = fit->calibration;
        profile.layouts.push_back(e);
        const auto error = [&](double predicted) {
            const double percent = (predicted / step->seconds - 1.0) * 100.0;
            return format("%+.1f%%", std::abs(percent) < 0.05 ? 0.0 : percent);
        };
        out << "layout " << layout_name(layout->topology) << ": " << in.model.name << ", seq " << e.seq
            << ", micro-batch " << e.micro_batch << ", grad-accum " << e.grad_accum << "\n";
        out << "  measured:                 " << format("%.3f", step->seconds) << " s a step (" << step->how << "; "
            << step->loss_lines << " logging lines)\n";
        out << "  predicted, presets:       " << format("%.3f", at_presets.step.seconds) << " s (compute "
            << format("%.3f", at_presets.step.compute.seconds) << " s at calibration "
            << format("%g", preset.calibration) << ", exposed communication "
            << format("%.3f", at_presets.step.exposed_seconds) << " s): " << error(at_presets.step.seconds) << "\n";
        out << "  predicted, this profile:  " << format("%.3f", fit->fitted.step.seconds) << " s (compute "
            << format("%.3f", fit->fitted.step.compute.seconds) << " s at calibration "
            << format("%.3f", fit->calibration) << ", exposed communication "
            << format("%.3f", fit->fitted.step.exposed_seconds) << " s): " << error(fit->fitted.step.seconds) << "\n";
    }

    out << "profile: " << cost::profile_constants_text(profile) << "\n";
    if (!a.out_path.empty()) {
        std::ofstream file(a.out_path, std::ios::binary | std::ios::trunc);
        if (file) file << cost::cluster_profile_json(profile).dump(2) << "\n";
        if (!file) {
            std::cerr << "meshscope calibrate: cannot write '" << a.out_path << "'\n";
            return exit_failure;
        }
        out << "wrote " << a.out_path << "\n";
    }
    out.flush();
    return out ? exit_ok : exit_failure;
}

}  // namespace meshscope::app
