// What each LlamaFactory v1 version that `meshscope check` knows does with a training YAML: where it reads the
// mesh topology, which distributed plugins it registers, the dist_config keys each reads, whether unknown keys
// are rejected, and the exact texts of its errors. Every entry was read from hiyouga/LlamaFactory at the commit it
// names (docs/cost-model-check.md, "LlamaFactory versions", has the table and the files and lines).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meshscope::app::llamafactory {

// One distributed plugin of a version (dist_config.name).
struct Plugin {
    std::string name;
    // The dist_config keys the plugin's code reads (name included). With `strict`, any other key is refused by
    // BasePlugin.parse_params: "Unknown params for DistributedPlugin.<params_class>: [...]. Expected: [...]".
    std::vector<std::string> keys;
    bool strict = false;
    std::string params_class;  // FSDP2Params, FSDPTurboParams, DeepSpeedParams (strict versions)
    // Expert parallelism (FSDPTurbo and its MindSpeed predecessor).
    bool expert_parallel = false;
    bool ep_modules_from_yaml = false;     // dist_config.ep_modules / ep_fsdp_modules override the model's spec
    std::vector<std::string> spec_models;  // model types with a built-in EP spec (FSDPTurboEPModelSpec.register)
    // The error when the model type has no spec (and, where the YAML can name them, no ep_modules).
    std::string no_spec_error;  // "{model_type}" is replaced
    // A context-parallel refusal of this plugin (DeepSpeed): the exact text, empty when cp is accepted.
    std::string cp_error;
};

struct Version {
    std::string id;                        // what --llamafactory-version takes, e.g. "2026-08-13"
    std::string commit;                    // the upstream commit read
    std::string date;                      // its commit date
    std::string source;                    // where it is: "main", "tag v0.9.5", "pull request #10676"
    std::string summary;                   // one line for the version table
    bool topology_in_dist_config = false;  // dp_size, cp_size, cp_mode, mp_* (and ep_size) read from dist_config
    bool ep_in_strategy = false;           // DistributedStrategy validates ep_size (before the mesh checks)
    bool checks_world_by_cp = false;       // "world_size (W) must be divisible by cp_size (C)."
    bool checks_world_by_mp_replicate = false;
    // Every field of ModelArguments, DataArguments, TrainingArguments and SampleArguments (config/*_args.py): any
    // other top-level key makes HfArgumentParser.parse_dict raise (config/arg_parser.py, allow_extra_keys off).
    std::vector<std::string> arguments;
    std::string unknown_plugin_error;  // "{name}" is replaced
    std::vector<Plugin> plugins;

    [[nodiscard]] const Plugin* plugin(std::string_view name) const;
    // Topology keys of this version: where they belong.
    [[nodiscard]] static const std::vector<std::string>& topology_keys();
};

// Newest first; the first is the default.
[[nodiscard]] const std::vector<Version>& versions();
// By id, tag (v0.9.5, 0.9.5), or a commit prefix of 7 or more hex digits; "latest" is the newest.
[[nodiscard]] const Version* find_version(std::string_view name);
[[nodiscard]] std::string known_version_ids();

// fsdp_turbo's module_name_match as LlamaFactory uses it: a dotted pattern where "{*}" stands for one path
// segment (a layer index).
[[nodiscard]] bool module_name_match(std::string_view pattern, std::string_view name);

// The module names of a model as transformers builds it (model_type -> the paths the FSDPTurbo specs name), one
// per layer and module; empty for a model type whose names are not known.
[[nodiscard]] std::vector<std::string> module_names(std::string_view model_type, std::int64_t layers,
                                                    const std::vector<std::int64_t>& linear_layers,
                                                    const std::vector<std::int64_t>& dense_layers);

// The experts FSDPTurbo's spec names for a model type ("" when none).
[[nodiscard]] std::string spec_experts(std::string_view model_type);

// Python's repr of a sorted list of strings: ['a', 'b'].
[[nodiscard]] std::string python_list(std::vector<std::string> items);

}  // namespace meshscope::app::llamafactory
