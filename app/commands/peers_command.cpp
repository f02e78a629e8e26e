// meshscope peers: one (world, cp, ep) as FSDPTurbo, TorchTitan and Megatron-Core each lay it out (core's
// compare_peers), as text or as meshscope.peers/1 (docs/peers.md). A framework refusing the shape is part of the
// answer (its own error text); exit 2 for bad input, or when no framework lays the shape out.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli_support.h"
#include "commands.h"
#include "meshscope/mesh/peer_json.h"
#include "meshscope/mesh/peer_layout.h"
#include "meshscope/mesh/plan_request.h"

namespace meshscope::app {

namespace {
constexpr const char* usage_hint =
    "hint: meshscope peers --world W [--cp C] --ep E [--gpus-per-node G] [--format text|json]";

const Usage usage_error{"peers", usage_hint};

std::string group_text(const std::vector<std::int64_t>& group) {
    std::string out = "[";
    for (std::size_t i = 0; i < group.size(); ++i) out += (i ? ", " : "") + std::to_string(group[i]);
    return out + "]";
}

// Groups as a paragraph of lines of about 100 columns, indented under their dim.
void write_groups(std::ostream& out, const PeerDim& dim) {
    std::string line = "     ";
    for (const auto& group : dim.groups) {
        const std::string text = group_text(group);
        if (line.size() > 5 && line.size() + 1 + text.size() > 100) {
            out << line << "\n";
            line = "     ";
        }
        line += " " + text;
    }
    out << line << "\n";
}

void write_text(std::ostream& out, const PeerShape& shape, const std::vector<PeerOutcome>& outcomes) {
    out << "peers: world " << shape.world << ", cp " << shape.cp << ", ep " << shape.ep << ", " << shape.gpus_per_node
        << " GPUs per node\n";
    std::vector<std::string> inside, across;
    for (const auto& outcome : outcomes) {
        const std::string name(to_string(outcome.framework));
        out << "\n" << name << "\n";
        if (!outcome.layout) {
            out << "  refuses it: " << python_name(outcome.error->type()) << ": " << outcome.error->message() << "\n";
            continue;
        }
        for (const auto& dim : outcome.layout->dims) {
            out << "  " << dim.name << ": " << dim.groups.size() << " groups of " << dim.groups.front().size() << ", "
                << dim.cross_node_groups << " across nodes\n";
            write_groups(out, dim);
        }
        const PeerDim* ep = outcome.layout->dim("ep");
        (ep->cross_node_groups == 0 ? inside : across)
            .push_back(ep->cross_node_groups == 0 ? name
                                                  : name + " (" + std::to_string(ep->cross_node_groups) + " of " +
                                                        std::to_string(ep->groups.size()) + ")");
    }
    const auto join = [](const std::vector<std::string>& names) {
        std::string text;
        for (std::size_t i = 0; i < names.size(); ++i) text += (i ? ", " : "") + names[i];
        return names.empty() ? std::string("none") : text;
    };
    out << "\nep groups inside one node: " << join(inside) << "\nep groups across nodes: " << join(across) << "\n";
}
}  // namespace

int run_peers(int argc, char** argv) {
    CLI::App cli{"Lay one (world, cp, ep) out as FSDPTurbo, TorchTitan and Megatron-Core do, side by side.",
                 "meshscope peers"};
    std::string world_text, cp_text = "1", ep_text, gpus_text = "8", format = "text";
    cli.add_option("--world", world_text, "world size (ranks)")->type_name("INT")->required();
    cli.add_option("--cp", cp_text, "context-parallel size")->type_name("INT")->capture_default_str();
    cli.add_option("--ep", ep_text, "expert-parallel size")->type_name("INT")->required();
    cli.add_option("--gpus-per-node", gpus_text, "GPUs per node; ranks fill nodes consecutively")
        ->type_name("INT")
        ->capture_default_str();
    cli.add_option("--format", format, "text or json (meshscope.peers/1)")
        ->check(CLI::IsMember({"text", "json"}))
        ->capture_default_str();
    if (const auto status = parse_or_usage(cli, argc, argv, usage_error)) return *status;
    PeerShape shape;
    for (const auto& [flag, text, value] :
         {std::tuple{"--world", &world_text, &shape.world}, std::tuple{"--cp", &cp_text, &shape.cp},
          std::tuple{"--ep", &ep_text, &shape.ep}, std::tuple{"--gpus-per-node", &gpus_text, &shape.gpus_per_node}})
        if (auto error = parse_plan_integer(flag, *text, *value)) return usage_error(*error);

    const auto outcomes = compare_peers(shape);
    if (!outcomes) {
        std::cerr << outcomes.error().message() << "\n" << peer_advice(outcomes.error()).hint << "\n";
        return exit_usage;
    }
    if (format == "json")
        std::cout << peers_to_json(shape, *outcomes).dump() << "\n";
    else
        write_text(std::cout, shape, *outcomes);
    std::cout.flush();
    if (!std::cout) return exit_failure;
    const bool any = std::any_of(outcomes->begin(), outcomes->end(), [](const PeerOutcome& o) { return o.layout; });
    if (!any)
        std::cerr << "no framework lays out world " << shape.world << " with cp " << shape.cp << " and ep " << shape.ep
                  << "\nhint: cp must divide world, and ep must divide world (FSDPTurbo: world / cp)\n";
    return any ? exit_ok : exit_usage;
}

}  // namespace meshscope::app
