// meshscope check: a LlamaFactory v1 training YAML preflighted before any GPU is spent (docs/cost-model-check.md,
// "Preflight"): the layout it derives on N nodes of G GPUs, LlamaFactory's and FSDPTurbo's own errors with their
// exact texts as the chosen LlamaFactory version raises them (llamafactory_versions.h), whether FSDPTurbo has an
// expert-parallel spec for the model and the module patterns match it, memory, and a faster layout if there is one.
// Exit 0 fine, 1 warnings, 2 errors (bad input included).
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

#include "cli_support.h"
#include "commands.h"
#include "llamafactory_versions.h"
#include "meshscope/cost/advice.h"
#include "meshscope/cost/cluster.h"
#include "meshscope/cost/cluster_profile.h"
#include "meshscope/cost/hf_config.h"
#include "meshscope/cost/presets.h"
#include "meshscope/mesh/plan_request.h"
#include "model_options.h"

namespace meshscope::app {

namespace {
constexpr const char* usage_hint =
    "hint: meshscope check CONFIG.yaml --nnodes N --nproc-per-node G [--model-config FILE] [--hardware NAME] "
    "[--network ndr|hdr] [--efficiency E | --cluster-profile FILE] [--llamafactory-version V]";

const Usage usage_error{"check", usage_hint};

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
    {"qwen/qwen3.5-35b-a3b", "qwen3.5-35b-a3b", "qwen3_5_moe"},
    {"qwen/qwen3.5-35b-a3b-base", "qwen3.5-35b-a3b", "qwen3_5_moe"},
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

// A list of strings (ep_modules, hook_modules), or the keys of a mapping (fsdp_modules).
std::vector<std::string> names_of(const YAML::Node& node) {
    std::vector<std::string> out;
    if (!node) return out;
    if (node.IsSequence()) {
        for (const auto& item : node)
            if (item.IsScalar()) out.push_back(item.Scalar());
    } else if (node.IsMap()) {
        for (const auto& item : node)
            if (item.first.IsScalar()) out.push_back(item.first.Scalar());
    } else if (node.IsScalar()) {
        out.push_back(node.Scalar());
    }
    return out;
}

struct TrainingYaml {
    std::string model;
    std::optional<std::int64_t> micro_batch, global_batch, cutoff_len, dp, cp, mp_replicate, mp_shard, ep;
    bool activation_checkpointing = true;  // LlamaFactory v1's default
    bool has_dist = false;                 // a dist_config mapping
    std::string dist_name;                 // empty: no name
    std::vector<std::string> top_keys, dist_keys;
    std::string ep_dispatcher;
    std::vector<std::string> ep_modules, ep_fsdp_modules, fsdp_modules, hook_modules;
    bool has_ep_modules = false;
    bool has_config_file = false;
};

// The fields check reads, from where `version` reads them (the topology at the top level or inside dist_config),
// or the message of the first bad one.
std::optional<std::string> read_training_yaml(const YAML::Node& root, const llamafactory::Version& version,
                                              TrainingYaml& out) {
    if (!root.IsMap()) return std::string("the config must be a YAML mapping of LlamaFactory arguments");
    for (const auto& item : root)
        if (item.first.IsScalar()) out.top_keys.push_back(item.first.Scalar());
    if (const auto model = root["model"]; model && model.IsScalar()) out.model = model.Scalar();
    for (const auto& [key, field] :
         {std::pair{"micro_batch_size", &out.micro_batch}, std::pair{"global_batch_size", &out.global_batch},
          std::pair{"cutoff_len", &out.cutoff_len}})
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
    YAML::Node dist = root["dist_config"];
    if (dist && !dist.IsNull()) {
        if (!dist.IsMap()) return std::string("dist_config must be a mapping (name: fsdpturbo, ep_size: N, ...)");
        out.has_dist = true;
        for (const auto& item : dist)
            if (item.first.IsScalar()) out.dist_keys.push_back(item.first.Scalar());
        if (const auto name = dist["name"]; name && name.IsScalar()) out.dist_name = name.Scalar();
        if (auto error = read_int(dist, "dist_config.", "ep_size", out.ep)) return error;
        if (const auto d = dist["ep_dispatcher"]; d && d.IsScalar()) out.ep_dispatcher = d.Scalar();
        out.has_ep_modules = static_cast<bool>(dist["ep_modules"]) && !dist["ep_modules"].IsNull();
        out.ep_modules = names_of(dist["ep_modules"]);
        out.ep_fsdp_modules = names_of(dist["ep_fsdp_modules"]);
        out.fsdp_modules = names_of(dist["fsdp_modules"]);
        out.hook_modules = names_of(dist["hook_modules"]);
        out.has_config_file = static_cast<bool>(dist["config_file"]) && !dist["config_file"].IsNull();
    }
    // The mesh topology where this version reads it; elsewhere it is not read (and refused, see run_check).
    const YAML::Node& topology = version.topology_in_dist_config ? dist : root;
    const std::string where = version.topology_in_dist_config ? "dist_config." : "";
    if (topology && topology.IsMap())
        for (const auto& [key, field] :
             {std::pair{"dp_size", &out.dp}, std::pair{"cp_size", &out.cp},
              std::pair{"mp_replicate_size", &out.mp_replicate}, std::pair{"mp_shard_size", &out.mp_shard}})
            if (auto error = read_int(topology, where, key, *field)) return error;
    return std::nullopt;
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
    return std::find(list.begin(), list.end(), item) != list.end();
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
            return found;
        }
    // A checkpoint folder that is not on this machine (a path of the training cluster): its folder name, when it
    // is a preset's repository name, names the model.
    const std::string folder = lower(fs::path(model).filename().string());
    if (!folder.empty() && model.find('/') != std::string::npos)
        for (const auto& h : hub_names) {
            const std::string_view id = h.id;
            if (id.substr(id.find('/') + 1) != folder) continue;
            found.spec = cost::find_model_preset(h.preset).value();
            found.model_type = h.model_type;
            found.from = "preset " + std::string(h.preset) + " (" + model +
                         " is not here; its folder name is the preset's repository name)";
            return found;
        }
    return found;
}

std::string layout_name(const Topology& t) {
    return "dp " + std::to_string(t.dp) + ", cp " + std::to_string(t.cp) + ", ep " + std::to_string(t.ep);
}

// Everything `meshscope check` reads from its command line.
struct CheckArguments {
    std::string config_path, nnodes_text, nproc_text, model_config, hardware = "h100", network = "ndr", efficiency;
    std::string version_name = llamafactory::versions().front().id;
    std::string profile_path;
    CLI::Option* nnodes_option = nullptr;
    CLI::Option* nproc_option = nullptr;
    CLI::Option* hardware_option = nullptr;
    CLI::Option* network_option = nullptr;
    CLI::Option* profile_option = nullptr;
};

void add_check_options(CLI::App& cli, CheckArguments& a) {
    cli.add_option("CONFIG", a.config_path, "the LlamaFactory training YAML")->required()->type_name("FILE");
    a.nnodes_option = cli.add_option("--nnodes", a.nnodes_text, "nodes")->type_name("N");
    a.nproc_option = cli.add_option("--nproc-per-node", a.nproc_text, "GPUs per node")->type_name("G");
    cli.add_option("--model-config", a.model_config, "the model's config.json (default: the YAML's model folder)")
        ->type_name("FILE");
    a.hardware_option =
        cli.add_option("--hardware", a.hardware, "GPU: " + cost::hardware_names())->capture_default_str();
    a.network_option = cli.add_option("--network", a.network, "inter-node network: ndr or hdr")->capture_default_str();
    cli.add_option("--llamafactory-version", a.version_name,
                   "the LlamaFactory v1 version that runs the YAML: " + llamafactory::known_version_ids() +
                       " (a tag or commit prefix also works)")
        ->capture_default_str()
        ->type_name("V");
    auto* efficiency_opt = cli.add_option("--efficiency", a.efficiency,
                                          "one share of the dense bf16 peak for every FLOP (default: each GEMM's "
                                          "share by its shape x the GPU's calibration)")
                               ->type_name("E");
    a.profile_option = cli.add_option("--cluster-profile", a.profile_path,
                                      "the constants `meshscope calibrate` fitted on your cluster (its hardware and "
                                      "network unless given)")
                           ->type_name("FILE");
    a.profile_option->excludes(efficiency_opt);
    efficiency_opt->excludes(a.profile_option);
}

// What the preflight reads once the arguments are good: the cluster, the version and the YAML's fields.
struct CheckInput {
    std::string config_path, model_config;
    std::int64_t nnodes = 0, nproc = 0;
    const llamafactory::Version* version = nullptr;
    TrainingYaml yaml;
    cost::ClusterSpec cluster;
    std::optional<cost::ClusterProfile> profile;  // --cluster-profile, applied to the cluster
    std::string profile_path;
};

// --nnodes and --nproc-per-node: given, whole and positive, and a world of a supported size.
std::optional<int> validate_world(const CheckArguments& a, CheckInput& in) {
    if (a.nnodes_option->count() == 0) return usage_error("give --nnodes");
    if (a.nproc_option->count() == 0) return usage_error("give --nproc-per-node");
    if (auto error = parse_int_option("--nnodes", a.nnodes_text, in.nnodes)) return usage_error(*error);
    if (auto error = parse_int_option("--nproc-per-node", a.nproc_text, in.nproc)) return usage_error(*error);
    if (in.nnodes < 1) return usage_error("--nnodes must be positive, got " + a.nnodes_text + ".");
    if (in.nproc < 1) return usage_error("--nproc-per-node must be positive, got " + a.nproc_text + ".");
    if (in.nnodes > max_world_size / in.nproc)
        return usage_error("world_size (" + a.nnodes_text + " x " + a.nproc_text +
                           ") exceeds the supported maximum of " + std::to_string(max_world_size) + ".");
    return std::nullopt;
}

// The YAML read (it must parse) and its fields as the chosen LlamaFactory version reads them.
std::optional<int> validate_yaml(const CheckArguments& a, CheckInput& in) {
    YAML::Node root;
    {
        std::ifstream file(a.config_path);
        if (!file) return usage_error("cannot read config '" + a.config_path + "': No such file or directory");
        try {
            root = YAML::Load(file);
        } catch (const YAML::Exception& e) {
            return usage_error(a.config_path + " is not valid YAML (line " + std::to_string(e.mark.line + 1) +
                               ", column " + std::to_string(e.mark.column + 1) + "): " + e.msg);
        }
    }
    in.version = llamafactory::find_version(a.version_name);
    if (in.version == nullptr)
        return usage_error("unknown --llamafactory-version '" + a.version_name +
                           "'; known: " + llamafactory::known_version_ids());
    if (auto error = read_training_yaml(root, *in.version, in.yaml)) return usage_error(a.config_path + ": " + *error);
    // 0 would read as "no global batch" further on; LlamaFactory's own default is dp x micro_batch_size.
    if (in.yaml.global_batch && *in.yaml.global_batch < 1)
        return usage_error(a.config_path + ": global_batch_size must be positive, got " +
                           std::to_string(*in.yaml.global_batch) + ".");
    return std::nullopt;
}

// --hardware, --network, --cluster-profile (its hardware and network unless given) and --efficiency as the cluster
// the cost model prices.
std::optional<int> validate_cluster(const CheckArguments& a, CheckInput& in) {
    std::string hardware = a.hardware, network = a.network;
    if (a.profile_option->count() > 0) {
        auto loaded = cost::load_cluster_profile(a.profile_path);
        if (!loaded) return usage_error(loaded.error().message());
        in.profile = std::move(loaded).value();
        in.profile_path = a.profile_path;
        if (a.hardware_option->count() == 0) hardware = in.profile->hardware;
        if (a.network_option->count() == 0) network = in.profile->network;
    }
    auto made_cluster = cost::make_cluster(hardware, network, in.nproc);
    if (!made_cluster) return usage_error(made_cluster.error().message());
    in.cluster = std::move(made_cluster).value();
    if (in.profile) {
        auto applied = cost::apply_cluster_profile(in.cluster, *in.profile);
        if (!applied) return usage_error(a.profile_path + ": " + applied.error().message());
        in.cluster = std::move(applied).value();
    }
    if (!a.efficiency.empty()) {
        char* end = nullptr;
        const double e = std::strtod(a.efficiency.c_str(), &end);
        if (end == a.efficiency.c_str() || *end != '\0' || !(e > 0.0 && e <= 1.0))
            return usage_error("--efficiency must be a number in (0, 1], got '" + a.efficiency + "'.");
        in.cluster.efficiency = e;
        in.cluster.calibration = 0;  // one flat share for all compute instead of the kernel curves
    }
    return std::nullopt;
}

// Bad input is a usage error (exit 2) before any line of the report.
std::optional<int> validate_check(const CheckArguments& a, CheckInput& in) {
    in.config_path = a.config_path;
    in.model_config = a.model_config;
    if (const auto failed = validate_world(a, in)) return failed;
    if (const auto failed = validate_yaml(a, in)) return failed;
    return validate_cluster(a, in);
}

// The preflight's stages share the input, the report so far and what earlier stages found.
struct Preflight {
    const CheckInput& in;
    const TrainingYaml& yaml;
    const llamafactory::Version& version;
    std::int64_t world;
    std::string lf;  // "LlamaFactory v1.2.0", the version's name in the report's words
    Report report;
    bool topology_on_top = false;                  // a topology key among the unknown top-level keys
    const llamafactory::Plugin* plugin = nullptr;  // dist_config's plugin, when the version registers it
    bool expert_parallel = false;
    std::string cp_key;  // where the version reads cp_size

    explicit Preflight(const CheckInput& input)
        : in(input),
          yaml(input.yaml),
          version(*input.version),
          world(input.nnodes * input.nproc),
          lf("LlamaFactory " + input.version->id) {}
};

// The report as it stands, its worst severity the exit status.
int finish(Preflight& p) {
    std::cout << p.report.out.str();
    std::cout.flush();
    return p.report.worst;
}

void report_header(Preflight& p) {
    const CheckInput& in = p.in;
    p.report.info("config: " + in.config_path + " on " + std::to_string(in.nnodes) +
                  (in.nnodes == 1 ? " node x " : " nodes x ") + std::to_string(in.nproc) + " GPUs = world " +
                  std::to_string(p.world));
    p.report.info("llamafactory: " + p.version.id + " (" + p.version.source + ", " + p.version.commit.substr(0, 7) +
                  ", " + p.version.date + "): " + p.version.summary);
    if (in.profile)
        p.report.info("cluster profile: " + in.profile_path + ": " + cost::profile_constants_text(*in.profile));
}

// HfArgumentParser refuses every top-level key the version's argument dataclasses do not have, sorted.
void check_top_level_keys(Preflight& p) {
    std::vector<std::string> unknown_top;
    for (const auto& key : p.yaml.top_keys)
        if (!contains(p.version.arguments, key)) unknown_top.push_back(key);
    p.topology_on_top = std::any_of(unknown_top.begin(), unknown_top.end(), [](const std::string& k) {
        return contains(llamafactory::Version::topology_keys(), k);
    });
    if (!unknown_top.empty())
        p.report.error("Some keys are not used by the HfArgumentParser: " + llamafactory::python_list(unknown_top) +
                       (p.topology_on_top ? " (" + p.lf + " reads the mesh topology inside dist_config)" : ""));
}

// The keys of a plugin the version registers: refused by a strict plugin, ignored (a warning) by the others.
void check_plugin_keys(Preflight& p, const llamafactory::Plugin& plugin) {
    const TrainingYaml& yaml = p.yaml;
    std::vector<std::string> unknown;
    for (const auto& key : yaml.dist_keys)
        if (!contains(plugin.keys, key)) unknown.push_back(key);
    if (!unknown.empty() && plugin.strict) {
        p.report.error("Unknown params for DistributedPlugin." + plugin.params_class + ": " +
                       llamafactory::python_list(unknown) + ". Expected: " + llamafactory::python_list(plugin.keys));
    } else {
        for (const auto& key : unknown)
            if (key != "ep_size" || plugin.expert_parallel)
                p.report.warning("dist_config." + key + " is not read by " + p.lf + "'s " + plugin.name +
                                 " plugin (a plain dict there: ignored)");
    }
    if (plugin.strict && plugin.name == "deepspeed" && !yaml.has_config_file)
        p.report.error("DeepSpeed config_file is required.");
    if (!plugin.expert_parallel && yaml.ep && *yaml.ep > 1 && !(plugin.strict && contains(unknown, "ep_size")))
        p.report.warning("dist_config.name is '" + yaml.dist_name + "', not 'fsdpturbo': ep_size " +
                         std::to_string(*yaml.ep) + " is FSDPTurbo's and has no effect");
}

// dist_config: the plugin, and the keys it reads.
void check_dist_config(Preflight& p) {
    const TrainingYaml& yaml = p.yaml;
    if (!yaml.has_dist) {
        p.report.warning("no dist_config: LlamaFactory does not use FSDPTurbo, so there is no expert parallelism");
    } else if (yaml.dist_name.empty()) {
        p.report.error("Plugin configuration must have a 'name' field.");
    } else if (p.plugin = p.version.plugin(yaml.dist_name); p.plugin == nullptr) {
        std::string text = p.version.unknown_plugin_error;
        text.replace(text.find("{name}"), 6, yaml.dist_name);
        std::string known;
        for (const auto& plugin : p.version.plugins) known += (known.empty() ? "" : ", ") + plugin.name;
        p.report.error(text + " (" + p.lf + " registers " + known + ")");
    } else {
        check_plugin_keys(p, *p.plugin);
    }
}

// A misplaced field that another known version reads where the YAML has it: name that version.
void hint_other_version(Preflight& p) {
    const TrainingYaml& yaml = p.yaml;
    for (const auto& other : llamafactory::versions()) {
        if (other.topology_in_dist_config == p.version.topology_in_dist_config) continue;
        const bool fits =
            other.topology_in_dist_config
                ? std::any_of(yaml.dist_keys.begin(), yaml.dist_keys.end(),
                              [](const std::string& k) { return contains(llamafactory::Version::topology_keys(), k); })
                : p.topology_on_top;
        if (!fits || (other.plugin(yaml.dist_name) == nullptr && yaml.has_dist)) continue;
        p.report.info("hint: LlamaFactory " + other.id + " (" + other.source + ", " + other.date + ") reads " +
                      (other.topology_in_dist_config ? "dp_size, cp_size, cp_mode and mp_* inside dist_config"
                                                     : "dp_size, cp_size, cp_mode and mp_* at the top level") +
                      "; if that is the version you run, check with --llamafactory-version " + other.id);
        break;
    }
}

// LlamaFactory's and FSDPTurbo's checks of the mesh, in their order and words: the topology, or none when the
// report ends here.
std::optional<Topology> mesh_topology(Preflight& p) {
    const TrainingYaml& yaml = p.yaml;
    const std::int64_t world = p.world;
    p.expert_parallel = p.plugin != nullptr && p.plugin->expert_parallel;
    const std::int64_t ep = p.expert_parallel ? yaml.ep.value_or(1) : 1;
    const std::int64_t cp = yaml.cp.value_or(1);
    p.cp_key = p.version.topology_in_dist_config ? "dist_config.cp_size" : "cp_size";
    if (!yaml.dp && cp >= 1 && world % cp != 0 && !p.version.checks_world_by_cp) {
        p.report.error("world_size (" + std::to_string(world) + ") is not divisible by " + p.cp_key + " (" +
                       std::to_string(cp) + "): " + p.lf + " does not check it and sets dp_size = " +
                       std::to_string(world / cp) + ", so init_device_mesh fails on a (" + std::to_string(world / cp) +
                       ", " + std::to_string(cp) + ") mesh of " + std::to_string(world) + " ranks");
        return std::nullopt;
    }
    const std::int64_t mp_replicate = yaml.mp_replicate.value_or(1);
    if (!yaml.mp_shard && mp_replicate >= 1 && world % mp_replicate != 0 && !p.version.checks_world_by_mp_replicate) {
        p.report.error("world_size (" + std::to_string(world) + ") is not divisible by mp_replicate_size (" +
                       std::to_string(mp_replicate) + "): " + p.lf + " does not check it, so init_device_mesh fails");
        return std::nullopt;
    }
    if (p.plugin != nullptr && !p.plugin->cp_error.empty() && cp > 1) p.report.error(p.plugin->cp_error);
    PlanRequest request;
    request.world = world;
    request.dp = yaml.dp;
    request.cp = cp;
    request.ep = ep;
    request.gpus_per_node = p.in.nproc;
    request.mp_replicate = mp_replicate;
    request.mp_shard = yaml.mp_shard;
    auto topology = make_topology(request);
    if (!topology) {
        p.report.error(topology.error().message());
        return std::nullopt;
    }
    return std::move(topology).value();
}

// The layout derived, and where each of its dims runs (inside a node or across nodes).
void report_layout(Preflight& p, const Topology& t, const Placement& placement) {
    const TrainingYaml& yaml = p.yaml;
    // Where the topology is in dist_config, the DistributedStrategy validates ep_size for every plugin
    // (accelerator/interface.py at b8b6398), though only the expert-parallel one builds experts on it.
    if (!p.expert_parallel && p.version.ep_in_strategy && yaml.ep) {
        if (*yaml.ep < 1)
            p.report.error("ep_size must be positive, got " + std::to_string(*yaml.ep) + ".");
        else if (t.dp % *yaml.ep != 0)
            p.report.error("dp_size must be divisible by ep_size, got " + std::to_string(t.dp) + " % " +
                           std::to_string(*yaml.ep) + " != 0.");
    }
    std::string layout = "layout: dp " + std::to_string(t.dp) + " x cp " + std::to_string(t.cp) + " = world " +
                         std::to_string(p.world) + "; ep " + std::to_string(t.ep);
    if (t.ep > 1)
        layout += ", efsdp " + std::to_string(t.efsdp) + ", edp " + std::to_string(t.edp) +
                  " (edp is 1 whenever ep divides dp; experts are split over ep and sharded over efsdp)";
    else
        layout += ": no expert mesh, experts stay under the outer FSDP2 on dp";
    p.report.info(layout);
    // Where NVLink joins hosts (gb200) the groups that matter for cost are those inside one NVLink domain, not one
    // host: the placement is the domain's, and the lines say so.
    const bool domain = placement.gpus_per_node != p.in.nproc;
    const std::string node = domain ? "NVLink domain" : "node";
    for (const auto& d : cost::mesh_dims(t, placement)) {
        if (d.size <= 1) continue;
        p.report.info("  " + d.mesh + "." + d.dim + " (size " + std::to_string(d.size) + "): " +
                      (d.crosses_node
                           ? "leaves its " + node + ", across " + std::to_string(d.nodes) + " " + node + "s"
                           : "inside " + std::string(domain ? "one " : "a ") + node +
                                 (domain ? " of " + std::to_string(placement.gpus_per_node) + " GPUs" : "")));
    }
}

// FSDPTurbo's dispatcher: forwarded unchanged to FSDPTurbo's EPPlanConfig (fsdpturbo.py prepare_model_ep);
// the values LlamaFactory's design doc lists (docs/en/advanced/distributed/fsdpturbo-ep-efsdp.md).
void check_dispatcher(Preflight& p) {
    if (!p.expert_parallel || p.yaml.ep_dispatcher.empty()) return;
    const std::string d = p.yaml.ep_dispatcher;
    if (d == "mc2" || d == "domino")
        p.report.info("ep_dispatcher " + d + ": accepted, but not validated end to end upstream (" +
                      (d == "mc2" ? std::string("needs the MC2 NPU operators and an HCCL communicator")
                                  : std::string("overlaps the all-to-all with expert compute in two slices")) +
                      "); the cost model prices it as eager");
    else if (d != "eager" && d != "fused")
        p.report.warning("dist_config.ep_dispatcher '" + d +
                         "' is not one FSDPTurbo documents (eager, fused, mc2, domino); LlamaFactory forwards it "
                         "unchanged and FSDPTurbo decides");
}

// The model with its spec, or none when the report ends here (not found, or nothing known of it).
std::optional<ModelFound> model_of(Preflight& p) {
    auto model = find_model(p.in.model_config, p.yaml.model);
    if (!model) {
        p.report.error(model.error().message());
        return std::nullopt;
    }
    if (!model->spec) {
        p.report.warning("model '" + p.yaml.model +
                         "' is not a local folder with config.json nor a known model: give --model-config FILE to "
                         "check experts, heads and memory");
        return std::nullopt;
    }
    const auto& spec = *model->spec;
    p.report.info("model: " + model->from +
                  (model->model_type.empty() ? "" : " (model_type " + model->model_type + ")"));
    if (spec.linear_layer_count() > 0)
        p.report.info("  " + std::to_string(spec.linear_layer_count()) + " linear-attention (Gated DeltaNet) and " +
                      std::to_string(spec.full_attention_layer_count()) +
                      " full-attention layers; the vision tower is left out (model_class: llm)");
    return std::move(model).value();
}

// FSDPTurbo's expert modules: the YAML's ep_modules where this version reads them, else the spec of the
// model type; every module pattern the plugin reads is matched against the model's module names.
void check_expert_modules(Preflight& p, const ModelFound& model) {
    if (!p.expert_parallel) return;
    const llamafactory::Plugin& plugin = *p.plugin;
    const TrainingYaml& yaml = p.yaml;
    const cost::ModelSpec& spec = *model.spec;
    const bool from_yaml = plugin.ep_modules_from_yaml && yaml.has_ep_modules;
    if (!from_yaml && !contains(plugin.spec_models, model.model_type)) {
        std::string text = plugin.no_spec_error;
        text.replace(text.find("{model_type}"), 12, model.model_type);
        p.report.error(text);
    } else if (!from_yaml) {
        p.report.info("FSDPTurbo has an EP spec for " + model.model_type + ": " +
                      llamafactory::spec_experts(model.model_type));
    }
    const auto names = llamafactory::module_names(model.model_type, spec.layers, spec.linear_layers, spec.dense_layers);
    auto check_patterns = [&](const char* key, const std::vector<std::string>& patterns) {
        if (names.empty() || !contains(plugin.keys, key)) return;
        for (const auto& pattern : patterns) {
            const bool any = std::any_of(names.begin(), names.end(), [&](const std::string& n) {
                return llamafactory::module_name_match(pattern, n);
            });
            if (!any)
                p.report.warning("dist_config." + std::string(key) + " '" + pattern + "' matches no module of " +
                                 model.model_type +
                                 (llamafactory::spec_experts(model.model_type).empty()
                                      ? std::string()
                                      : " (its experts are " + llamafactory::spec_experts(model.model_type) + ")"));
        }
    };
    if (plugin.ep_modules_from_yaml) {
        check_patterns("ep_modules", yaml.ep_modules);
        check_patterns("ep_fsdp_modules", yaml.ep_fsdp_modules);
        check_patterns("fsdp_modules", yaml.fsdp_modules);
    }
    check_patterns("hook_modules", yaml.hook_modules);
}

// The step as configured (LlamaFactory's defaults where the YAML is silent, each default named so that a number
// can be traced to the YAML): the cost model's inputs, or none when the report ends here.
std::optional<cost::CostInputs> step_inputs(Preflight& p, const cost::ModelSpec& spec, const Topology& t) {
    const TrainingYaml& yaml = p.yaml;
    const std::int64_t micro = yaml.micro_batch.value_or(1);
    const std::int64_t seq = yaml.cutoff_len.value_or(2048);
    const std::int64_t global = yaml.global_batch.value_or(t.dp * micro);
    const auto recompute = yaml.activation_checkpointing ? cost::Recompute::full : cost::Recompute::none;
    auto made_training = cost::TrainingSpec::make(seq, micro, 1, recompute);
    if (!made_training) {
        p.report.error(made_training.error().message());
        return std::nullopt;
    }
    auto training = std::move(made_training).value();
    training.global_batch = global;
    p.report.info("training: seq " + std::to_string(seq) +
                  (yaml.cutoff_len ? " (cutoff_len)" : " (cutoff_len's default)") + ", micro-batch " +
                  std::to_string(micro) + ", global batch " + std::to_string(global) + " sequences" +
                  (yaml.global_batch ? "" : " (dp x micro_batch_size, LlamaFactory's default)") + ", recompute " +
                  (yaml.activation_checkpointing ? "full (enable_activation_checkpointing)" : "none"));
    auto in = cost::CostInputs::make(spec, training, p.in.cluster);
    const auto grad_accum = cost::grad_accum_for(in.training, t.dp);
    if (!grad_accum) {
        p.report.error(grad_accum.error().message());
        return std::nullopt;
    }
    in.training.grad_accum = *grad_accum;
    return in;
}

// Memory per GPU and the step's time, then a layout at least 10% faster at the same global batch if the advisor
// finds one.
void report_step(Preflight& p, const cost::CostInputs& in, const Topology& t, const Placement& placement) {
    const auto& cluster = p.in.cluster;
    const auto cost = cost::cost_layout(in, t, cost::mesh_dims(t, placement));
    const auto& m = cost.memory;
    if (m.fits())
        p.report.info("memory: " + gib(m.total()) + " GiB per GPU of " + gib(m.usable) + " GiB usable (" +
                      cluster.hardware + "), " + gib(m.headroom()) + " GiB headroom");
    else
        p.report.error("does not fit: " + cost::does_not_fit(m, cluster));
    char line[256];
    std::snprintf(line, sizeof line,
                  "step: %s (compute %s, exposed communication %s), grad-accum %lld, %.0f tokens/s per GPU, MFU "
                  "%.1f%%",
                  seconds_text(cost.step.seconds).c_str(), seconds_text(cost.step.compute.seconds).c_str(),
                  seconds_text(cost.step.exposed_seconds).c_str(), static_cast<long long>(cost.step.grad_accum),
                  cost.step.tokens_per_second_per_gpu, cost.step.mfu * 100.0);
    p.report.info(line);

    cost::CostInputs advise_in = in;
    advise_in.training.grad_accum = 1;
    if (const auto advice = cost::advise(advise_in, p.world); advice && !advice->ranked.empty()) {
        const auto& best = advice->ranked.front();
        const bool same = best.topology.dp == t.dp && best.topology.cp == t.cp && best.topology.ep == t.ep;
        if (!same && best.step.seconds <= cost.step.seconds / 1.1) {
            std::snprintf(line, sizeof line, "%.0f%%", (cost.step.seconds / best.step.seconds - 1.0) * 100.0);
            p.report.warning(layout_name(best.topology) + " is " + line + " faster at this global batch (" +
                             seconds_text(best.step.seconds) + " against " + seconds_text(cost.step.seconds) +
                             " a step): set " + p.cp_key + ": " + std::to_string(best.topology.cp) +
                             " and dist_config.ep_size: " + std::to_string(best.topology.ep));
        } else if (m.fits()) {
            p.report.info("no layout is 10% faster at this global batch");
        }
    }
}

// The report's stages in order: the YAML's keys as LlamaFactory reads them, the layout, the model and its expert
// modules, then memory and speed. A stage that leaves nothing for the next to read ends the report.
int preflight(const CheckInput& in) {
    Preflight p(in);
    report_header(p);
    check_top_level_keys(p);
    check_dist_config(p);
    hint_other_version(p);
    const auto topology = mesh_topology(p);
    if (!topology) return finish(p);
    const Topology& t = *topology;
    // The cost model's node: the host on 8-GPU boards, the 72-GPU NVLink domain of hosts of 4 on gb200.
    const auto placement = Placement::make(p.world, in.cluster.gpus_per_node).value();
    report_layout(p, t, placement);
    check_dispatcher(p);
    const auto model = model_of(p);
    if (!model) return finish(p);
    check_expert_modules(p, *model);
    if (auto problem = cost::layout_problem(*model->spec, t)) p.report.error(*problem);
    const auto step = step_inputs(p, *model->spec, t);
    if (!step) return finish(p);
    report_step(p, *step, t, placement);
    return finish(p);
}
}  // namespace

int run_check(int argc, char** argv) {
    CLI::App cli{"Preflight a LlamaFactory v1 training YAML on N nodes of G GPUs: layout, errors, memory, speed.",
                 "meshscope check"};
    CheckArguments a;
    add_check_options(cli, a);
    if (const auto status = parse_or_usage(cli, argc, argv, usage_error)) return *status;
    CheckInput in;
    if (const auto failed = validate_check(a, in)) return *failed;
    return preflight(in);
}

}  // namespace meshscope::app
