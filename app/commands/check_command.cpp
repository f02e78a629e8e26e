// meshscope check: a LlamaFactory v1 training YAML preflighted before any GPU is spent (docs/cost-model.md,
// "Preflight"): the layout it derives on N nodes of G GPUs, LlamaFactory's and FSDPTurbo's own errors with their
// exact texts, whether FSDPTurbo has an expert-parallel spec for the model, memory, and a faster layout if there
// is one. Exit 0 fine, 1 warnings, 2 errors (bad input included).
#include <yaml-cpp/yaml.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "commands.h"
#include "meshscope/cost/advice.h"
#include "meshscope/cost/hf_config.h"
#include "meshscope/cost/presets.h"
#include "meshscope/mesh/plan_request.h"
#include "model_options.h"

namespace meshscope::app {

namespace {
constexpr const char* usage_hint =
    "hint: meshscope check CONFIG.yaml --nnodes N --nproc-per-node G [--model-config FILE] [--hardware NAME] "
    "[--network ndr|hdr] [--efficiency E]";

int usage_error(const std::string& message) {
    std::cerr << "meshscope check: " << message << "\n" << usage_hint << "\n";
    return exit_usage;
}

// The model types FSDPTurbo registers an expert-parallel spec for (fsdpturbo.py, as domain.md last read it).
struct EpSpec {
    const char* model_type;
    const char* experts;
};
constexpr EpSpec ep_specs[] = {{"qwen3_moe", "model.layers.{*}.mlp.experts"}};

// Topology fields LlamaFactory reads at the top level; inside dist_config its plugin config rejects them.
constexpr const char* topology_fields[] = {"dp_size", "cp_size", "mp_replicate_size", "mp_shard_size"};

// Hugging Face repository ids of the presets, for a `model:` that is not a local path.
struct HubName {
    const char* id;
    const char* preset;
    const char* model_type;
};
constexpr HubName hub_names[] = {
    {"qwen/qwen3-30b-a3b", "qwen3-30b-a3b", "qwen3_moe"},
    {"qwen/qwen3-30b-a3b-base", "qwen3-30b-a3b", "qwen3_moe"},
    {"qwen/qwen3-235b-a22b", "qwen3-235b-a22b", "qwen3_moe"},
    {"deepseek-ai/deepseek-v3", "deepseek-v3", "deepseek_v3"},
    {"deepseek-ai/deepseek-v3-base", "deepseek-v3", "deepseek_v3"},
    {"mistralai/mixtral-8x7b-v0.1", "mixtral-8x7b", "mixtral"},
};

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
}

std::string gib(double bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", bytes / (1024.0 * 1024.0 * 1024.0));
    return text;
}

std::string seconds_text(double seconds) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3f s", seconds);
    return text;
}

// What check reports, worst severity last decides the exit status.
struct Report {
    int worst = exit_ok;
    std::ostringstream out;
    void info(const std::string& line) { out << line << "\n"; }
    void warning(const std::string& line) {
        out << "warning: " << line << "\n";
        worst = std::max(worst, 1);
    }
    void error(const std::string& line) {
        out << "error: " << line << "\n";
        worst = std::max(worst, 2);
    }
};

// An integer field of the YAML: absent -> fallback; present but not a whole number -> the message.
std::optional<std::string> read_int(const YAML::Node& node, const std::string& where, const char* key,
                                    std::optional<std::int64_t>& out) {
    const auto value = node[key];
    if (!value || value.IsNull()) return std::nullopt;
    const std::string text = value.IsScalar() ? value.Scalar() : std::string("(not a scalar)");
    std::int64_t n = 0;
    if (!value.IsScalar() || parse_int_option(key, text, n))
        return where + key + " must be an integer, got '" + text + "'.";
    out = n;
    return std::nullopt;
}

struct TrainingYaml {
    std::string model;
    std::optional<std::int64_t> micro_batch, global_batch, cutoff_len, dp, cp, mp_replicate, mp_shard, ep;
    bool activation_checkpointing = true;  // LlamaFactory v1's default
    std::string dist_name;                 // empty: no dist_config
    bool has_ep_modules = false;
    std::vector<std::string> misplaced;  // topology fields inside dist_config
};

// The fields check reads (LlamaFactory v1 TrainingArguments and ModelArguments names), or the message of the
// first bad one.
std::optional<std::string> read_training_yaml(const YAML::Node& root, TrainingYaml& out) {
    if (!root.IsMap()) return std::string("the config must be a YAML mapping of LlamaFactory arguments");
    if (const auto model = root["model"]; model && model.IsScalar()) out.model = model.Scalar();
    for (const auto& [key, field] :
         {std::pair{"micro_batch_size", &out.micro_batch}, std::pair{"global_batch_size", &out.global_batch},
          std::pair{"cutoff_len", &out.cutoff_len}, std::pair{"dp_size", &out.dp}, std::pair{"cp_size", &out.cp},
          std::pair{"mp_replicate_size", &out.mp_replicate}, std::pair{"mp_shard_size", &out.mp_shard}})
        if (auto error = read_int(root, "", key, *field)) return error;
    if (const auto ac = root["enable_activation_checkpointing"]; ac && ac.IsScalar()) {
        const std::string text = lower(ac.Scalar());
        if (text == "true")
            out.activation_checkpointing = true;
        else if (text == "false")
            out.activation_checkpointing = false;
        else
            return "enable_activation_checkpointing must be true or false, got '" + ac.Scalar() + "'.";
    }
    if (const auto dist = root["dist_config"]; dist && !dist.IsNull()) {
        if (!dist.IsMap()) return std::string("dist_config must be a mapping (name: fsdpturbo, ep_size: N, ...)");
        if (const auto name = dist["name"]; name && name.IsScalar()) out.dist_name = name.Scalar();
        if (auto error = read_int(dist, "dist_config.", "ep_size", out.ep)) return error;
        out.has_ep_modules = static_cast<bool>(dist["ep_modules"]) && !dist["ep_modules"].IsNull();
        for (const char* field : topology_fields)
            if (dist[field]) out.misplaced.emplace_back(field);
    }
    return std::nullopt;
}

// The model: --model-config, else `model:` as a local folder with config.json, else a preset's hub id.
struct ModelFound {
    std::optional<cost::ModelSpec> spec;
    std::string model_type;
    std::string from;
};

Expected<ModelFound> find_model(const std::string& model_config, const std::string& model) {
    namespace fs = std::filesystem;
    std::string path = model_config;
    std::error_code ec;
    if (path.empty() && !model.empty() && fs::is_directory(model, ec) && fs::exists(fs::path(model) / "config.json"))
        path = (fs::path(model) / "config.json").string();
    ModelFound found;
    if (!path.empty()) {
        auto spec = cost::load_hf_config(path);
        if (!spec) return spec.error();
        found.spec = std::move(spec).value();
        std::ifstream file(path);
        const auto json = nlohmann::json::parse(file, nullptr, false);
        if (json.is_object() && json.contains("model_type") && json["model_type"].is_string())
            found.model_type = json["model_type"].get<std::string>();
        found.from = path;
        return found;
    }
    for (const auto& h : hub_names)
        if (lower(model) == h.id) {
            found.spec = cost::find_model_preset(h.preset).value();
            found.model_type = h.model_type;
            found.from = "preset " + std::string(h.preset);
        }
    return found;
}

std::string layout_name(const Topology& t) {
    return "dp " + std::to_string(t.dp) + ", cp " + std::to_string(t.cp) + ", ep " + std::to_string(t.ep);
}
}  // namespace

int run_check(int argc, char** argv) {
    CLI::App cli{"Preflight a LlamaFactory v1 training YAML on N nodes of G GPUs: layout, errors, memory, speed.",
                 "meshscope check"};
    std::string config_path, nnodes_text, nproc_text, model_config, hardware = "h100", network = "ndr", efficiency;
    cli.add_option("CONFIG", config_path, "the LlamaFactory training YAML")->required()->type_name("FILE");
    auto* nnodes_opt = cli.add_option("--nnodes", nnodes_text, "nodes")->type_name("N");
    auto* nproc_opt = cli.add_option("--nproc-per-node", nproc_text, "GPUs per node")->type_name("G");
    cli.add_option("--model-config", model_config, "the model's config.json (default: the YAML's model folder)")
        ->type_name("FILE");
    cli.add_option("--hardware", hardware, "GPU: h100, h200, b200, a100")->capture_default_str();
    cli.add_option("--network", network, "inter-node network: ndr or hdr")->capture_default_str();
    cli.add_option("--efficiency", efficiency, "share of the dense bf16 peak the compute reaches (default: the GPU's)")
        ->type_name("E");
    try {
        cli.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return cli.exit(e);
    } catch (const CLI::ParseError& e) {
        return usage_error(e.what());
    }
    if (nnodes_opt->count() == 0) return usage_error("give --nnodes");
    if (nproc_opt->count() == 0) return usage_error("give --nproc-per-node");
    std::int64_t nnodes = 0, nproc = 0;
    if (auto error = parse_int_option("--nnodes", nnodes_text, nnodes)) return usage_error(*error);
    if (auto error = parse_int_option("--nproc-per-node", nproc_text, nproc)) return usage_error(*error);
    if (nnodes < 1) return usage_error("--nnodes must be positive, got " + nnodes_text + ".");
    if (nproc < 1) return usage_error("--nproc-per-node must be positive, got " + nproc_text + ".");
    if (nnodes > max_world_size / nproc)
        return usage_error("world_size (" + nnodes_text + " x " + nproc_text + ") exceeds the supported maximum of " +
                           std::to_string(max_world_size) + ".");

    YAML::Node root;
    {
        std::ifstream file(config_path);
        if (!file) return usage_error("cannot read config '" + config_path + "': No such file or directory");
        try {
            root = YAML::Load(file);
        } catch (const YAML::Exception& e) {
            return usage_error(config_path + " is not valid YAML (line " + std::to_string(e.mark.line + 1) +
                               ", column " + std::to_string(e.mark.column + 1) + "): " + e.msg);
        }
    }
    TrainingYaml yaml;
    if (auto error = read_training_yaml(root, yaml)) return usage_error(config_path + ": " + *error);
    // 0 would read as "no global batch" further on; LlamaFactory's own default is dp x micro_batch_size.
    if (yaml.global_batch && *yaml.global_batch < 1)
        return usage_error(config_path + ": global_batch_size must be positive, got " +
                           std::to_string(*yaml.global_batch) + ".");

    auto made_cluster = cost::make_cluster(hardware, network, nproc);
    if (!made_cluster) return usage_error(made_cluster.error().message());
    auto cluster = std::move(made_cluster).value();
    if (!efficiency.empty()) {
        char* end = nullptr;
        const double e = std::strtod(efficiency.c_str(), &end);
        if (end == efficiency.c_str() || *end != '\0' || !(e > 0.0 && e <= 1.0))
            return usage_error("--efficiency must be a number in (0, 1], got '" + efficiency + "'.");
        cluster.efficiency = e;
    }

    Report report;
    const std::int64_t world = nnodes * nproc;
    report.info("config: " + config_path + " on " + std::to_string(nnodes) + (nnodes == 1 ? " node x " : " nodes x ") +
                std::to_string(nproc) + " GPUs = world " + std::to_string(world));

    // dist_config: FSDPTurbo is what builds the expert mesh; topology fields belong at the top level.
    for (const auto& field : yaml.misplaced)
        report.error("dist_config." + field + ": LlamaFactory rejects topology fields inside dist_config (Unknown " +
                     "params); put " + field + " at the top level");
    const std::int64_t ep = yaml.ep.value_or(1);
    if (yaml.dist_name.empty())
        report.warning("no dist_config: LlamaFactory does not use FSDPTurbo, so there is no expert parallelism");
    else if (lower(yaml.dist_name) != "fsdpturbo" && ep > 1)
        report.warning("dist_config.name is '" + yaml.dist_name + "', not 'fsdpturbo': ep_size " + std::to_string(ep) +
                       " is FSDPTurbo's and has no effect");

    // LlamaFactory's and FSDPTurbo's checks, in their order and words.
    PlanRequest request;
    request.world = world;
    request.dp = yaml.dp;
    request.cp = yaml.cp.value_or(1);
    request.ep = ep;
    request.gpus_per_node = nproc;
    request.mp_replicate = yaml.mp_replicate.value_or(1);
    request.mp_shard = yaml.mp_shard;
    const auto topology = make_topology(request);
    if (!topology) {
        report.error(topology.error().message());
        std::cout << report.out.str();
        return report.worst;
    }
    const Topology& t = *topology;
    std::string layout = "layout: dp " + std::to_string(t.dp) + " x cp " + std::to_string(t.cp) + " = world " +
                         std::to_string(world) + "; ep " + std::to_string(t.ep);
    if (t.ep > 1)
        layout += ", efsdp " + std::to_string(t.efsdp) + ", edp " + std::to_string(t.edp) +
                  " (edp is 1 whenever ep divides dp; experts are split over ep and sharded over efsdp)";
    else
        layout += ": no expert mesh, experts stay under the outer FSDP2 on dp";
    report.info(layout);
    const auto placement = Placement::make(world, nproc).value();
    for (const auto& d : cost::mesh_dims(t, placement)) {
        if (d.size <= 1) continue;
        report.info(
            "  " + d.mesh + "." + d.dim + " (size " + std::to_string(d.size) + "): " +
            (d.crosses_node ? "leaves its node, across " + std::to_string(d.nodes) + " nodes" : "inside a node"));
    }

    auto model = find_model(model_config, yaml.model);
    if (!model) {
        report.error(model.error().message());
        std::cout << report.out.str();
        return report.worst;
    }
    if (!model->spec) {
        report.warning("model '" + yaml.model +
                       "' is not a local folder with config.json nor a known model: give --model-config FILE to "
                       "check experts, heads and memory");
        std::cout << report.out.str();
        return report.worst;
    }
    const auto& spec = *model->spec;
    report.info("model: " + model->from + (model->model_type.empty() ? "" : " (model_type " + model->model_type + ")"));

    // FSDPTurbo finds the expert modules by model_type unless dist_config.ep_modules names them.
    if (t.ep > 1 && !yaml.has_ep_modules) {
        const auto spec_it = std::find_if(std::begin(ep_specs), std::end(ep_specs),
                                          [&](const EpSpec& s) { return model->model_type == s.model_type; });
        if (spec_it == std::end(ep_specs))
            report.error("`ep_modules` is not specified and no FSDPTurbo EP spec is registered for model_type=" +
                         model->model_type + ".");
        else
            report.info("FSDPTurbo has an EP spec for " + model->model_type + ": " + spec_it->experts);
    }
    if (auto problem = cost::layout_problem(spec, t)) report.error(*problem);

    // The step as configured: LlamaFactory's defaults where the YAML is silent.
    const std::int64_t micro = yaml.micro_batch.value_or(1);
    const std::int64_t seq = yaml.cutoff_len.value_or(2048);
    const std::int64_t global = yaml.global_batch.value_or(t.dp * micro);
    const auto recompute = yaml.activation_checkpointing ? cost::Recompute::full : cost::Recompute::none;
    auto made_training = cost::TrainingSpec::make(seq, micro, 1, recompute);
    if (!made_training) {
        report.error(made_training.error().message());
        std::cout << report.out.str();
        return report.worst;
    }
    auto training = std::move(made_training).value();
    training.global_batch = global;
    // What the step below assumes, each default named, so a number can be traced to the YAML.
    report.info("training: seq " + std::to_string(seq) +
                (yaml.cutoff_len ? " (cutoff_len)" : " (cutoff_len's default)") + ", micro-batch " +
                std::to_string(micro) + ", global batch " + std::to_string(global) + " sequences" +
                (yaml.global_batch ? "" : " (dp x micro_batch_size, LlamaFactory's default)") + ", recompute " +
                (yaml.activation_checkpointing ? "full (enable_activation_checkpointing)" : "none"));
    auto in = cost::CostInputs::make(spec, training, cluster);
    const auto grad_accum = cost::grad_accum_for(in.training, t.dp);
    if (!grad_accum) {
        report.error(grad_accum.error().message());
        std::cout << report.out.str();
        return report.worst;
    }
    in.training.grad_accum = *grad_accum;
    const auto cost = cost::cost_layout(in, t, cost::mesh_dims(t, placement));
    const auto& m = cost.memory;
    if (m.fits())
        report.info("memory: " + gib(m.total()) + " GiB per GPU of " + gib(m.usable) + " GiB usable (" +
                    cluster.hardware + "), " + gib(m.headroom()) + " GiB headroom");
    else
        report.error("does not fit: " + cost::does_not_fit(m, cluster));
    char line[256];
    std::snprintf(line, sizeof line,
                  "step: %s (compute %s, exposed communication %s), grad-accum %lld, %.0f tokens/s per GPU, MFU "
                  "%.1f%%",
                  seconds_text(cost.step.seconds).c_str(), seconds_text(cost.step.compute.seconds).c_str(),
                  seconds_text(cost.step.exposed_seconds).c_str(), static_cast<long long>(cost.step.grad_accum),
                  cost.step.tokens_per_second_per_gpu, cost.step.mfu * 100.0);
    report.info(line);

    // A layout at least 10% faster at the same global batch, if the advisor finds one.
    cost::CostInputs advise_in = in;
    advise_in.training.grad_accum = 1;
    if (const auto advice = cost::advise(advise_in, world); advice && !advice->ranked.empty()) {
        const auto& best = advice->ranked.front();
        const bool same = best.topology.dp == t.dp && best.topology.cp == t.cp && best.topology.ep == t.ep;
        if (!same && best.step.seconds <= cost.step.seconds / 1.1) {
            std::snprintf(line, sizeof line, "%.0f%%", (cost.step.seconds / best.step.seconds - 1.0) * 100.0);
            report.warning(layout_name(best.topology) + " is " + line + " faster at this global batch (" +
                           seconds_text(best.step.seconds) + " against " + seconds_text(cost.step.seconds) +
                           " a step): set cp_size: " + std::to_string(best.topology.cp) +
                           " and dist_config.ep_size: " + std::to_string(best.topology.ep));
        } else if (m.fits()) {
            report.info("no layout is 10% faster at this global batch");
        }
    }
    std::cout << report.out.str();
    std::cout.flush();
    return report.worst;
}

}  // namespace meshscope::app
