// The LlamaFactory v1 versions `meshscope check` knows, each read from hiyouga/LlamaFactory at its commit
// (docs/cost-model-check.md). Files are under src/llamafactory/v1/ there.
#include "llamafactory_versions.h"

#include <algorithm>
#include <cctype>

namespace meshscope::app::llamafactory {

namespace {
// FSDP2Engine.__init__ (plugins/trainer_plugins/distributed/fsdp2.py) reads these four besides the name.
std::vector<std::string> fsdp2_keys() {
    return {"name", "reshard_after_forward", "offload_params", "pin_memory", "dcp_path"};
}

// The topology keys DistributedInterface reads from dist_config where it reads them there (accelerator/
// interface.py: mp_replicate_size, mp_shard_size, dp_size, cp_size, timeout; base_trainer.py: cp_mode).
std::vector<std::string> with_topology(std::vector<std::string> keys, bool ep) {
    for (const char* k : {"mp_replicate_size", "mp_shard_size", "dp_size", "cp_size", "cp_mode", "timeout"})
        keys.emplace_back(k);
    if (ep) keys.emplace_back("ep_size");
    return keys;
}

// The pull-request plugin (fsdpturbo.py at b8b6398, mindspeed_fsdp2.py at c6437cb): FSDP2Engine's keys and what
// prepare_model_ep reads with dist_config.get.
Plugin pr_expert_plugin(const char* name, bool triton_ops, std::vector<std::string> specs) {
    Plugin p;
    p.name = name;
    p.keys = with_topology(fsdp2_keys(), true);
    for (const char* k : {"ep_dispatcher", "ep_modules", "ep_fsdp_modules", "fsdp_modules", "hook_modules",
                          "fsdp_ignored_modules", "fsdp_implementation", "param_dtype", "reduce_dtype"})
        p.keys.emplace_back(k);
    if (triton_ops) p.keys.emplace_back("triton_ops");
    p.expert_parallel = true;
    p.ep_modules_from_yaml = true;
    p.spec_models = std::move(specs);
    p.no_spec_error =
        "`ep_modules` is not specified and no FSDPTurbo EP spec is registered for model_type={model_type}.";
    return p;
}

Plugin make_plugin(const char* name, std::vector<std::string> keys, bool strict = false, const char* params = "") {
    Plugin p;
    p.name = name;
    p.keys = std::move(keys);
    p.strict = strict;
    p.params_class = params;
    return p;
}

// The argument dataclasses' fields, read at each commit (config/model_args.py, data_args.py, training_args.py,
// sample_args.py).
std::vector<std::string> arguments_2026_07_24() {
    return {"batching_strategy",
            "batching_workers",
            "bf16",
            "cp_mode",
            "cp_size",
            "custom_chat_template",
            "cutoff_len",
            "dist_config",
            "dist_timeout",
            "dp_size",
            "dpo_label_smoothing",
            "enable_activation_checkpointing",
            "eval_dataset",
            "flash_attn",
            "full_determinism",
            "global_batch_size",
            "init_config",
            "kernel_config",
            "ld_alpha",
            "learning_rate",
            "logging_steps",
            "lr_scheduler_config",
            "max_grad_norm",
            "max_new_tokens",
            "max_steps",
            "micro_batch_size",
            "model",
            "model_class",
            "mp_replicate_size",
            "mp_shard_size",
            "num_train_epochs",
            "optim_config",
            "output_dir",
            "peft_config",
            "pref_beta",
            "pref_ftx",
            "pref_loss",
            "quant_config",
            "resume_from_checkpoint",
            "sample_backend",
            "save_ckpt_as_hf",
            "save_epochs",
            "save_steps",
            "save_total_limit",
            "seed",
            "simpo_gamma",
            "train_dataset",
            "trust_remote_code"};
}
std::vector<std::string> arguments_pr10676() {
    return {"batching_strategy",
            "batching_workers",
            "bf16",
            "custom_chat_template",
            "cutoff_len",
            "dist_config",
            "dpo_label_smoothing",
            "enable_activation_checkpointing",
            "eval_dataset",
            "flash_attn",
            "full_determinism",
            "global_batch_size",
            "init_config",
            "kernel_config",
            "ld_alpha",
            "learning_rate",
            "logging_steps",
            "lr_scheduler_config",
            "max_grad_norm",
            "max_new_tokens",
            "max_steps",
            "micro_batch_size",
            "model",
            "model_class",
            "num_train_epochs",
            "optim_config",
            "output_dir",
            "peft_config",
            "pref_beta",
            "pref_ftx",
            "pref_loss",
            "quant_config",
            "resume_from_checkpoint",
            "sample_backend",
            "save_ckpt_as_hf",
            "save_epochs",
            "save_steps",
            "save_total_limit",
            "seed",
            "simpo_gamma",
            "train_dataset",
            "trust_remote_code"};
}
std::vector<std::string> arguments_0_9_5() {
    return {"batching_strategy",
            "batching_workers",
            "bf16",
            "cutoff_len",
            "dist_config",
            "enable_activation_checkpointing",
            "eval_dataset",
            "flash_attn",
            "full_determinism",
            "global_batch_size",
            "init_config",
            "kernel_config",
            "learning_rate",
            "logging_steps",
            "lr_scheduler_config",
            "max_grad_norm",
            "max_new_tokens",
            "max_steps",
            "micro_batch_size",
            "model",
            "model_class",
            "num_train_epochs",
            "optim_config",
            "output_dir",
            "peft_config",
            "quant_config",
            "resume_from_checkpoint",
            "sample_backend",
            "save_ckpt_as_hf",
            "save_epochs",
            "save_steps",
            "save_total_limit",
            "seed",
            "template",
            "train_dataset",
            "trust_remote_code"};
}

// long: a table: each known LlamaFactory version's facts, one block per version
std::vector<Version> make_versions() {
    std::vector<Version> out;
    {
        // main at f28afaf (unchanged in these files through ff6d4d1, 2026-08-18): FSDPTurbo merged.
        Version v;
        v.id = "2026-08-13";
        v.arguments = arguments_2026_07_24();
        v.commit = "f28afaf6355af515454dfb16c97d728307c93897";
        v.date = "2026-08-13";
        v.source = "main (#10676 merged; same through ff6d4d1 of 2026-08-18)";
        v.summary =
            "topology at the top level; dist_config parsed strictly per plugin; fsdpturbo with built-in EP specs";
        v.checks_world_by_cp = true;
        v.checks_world_by_mp_replicate = true;
        // utils/plugin.py BasePlugin._resolve.
        v.unknown_plugin_error = "Plugin '{name}' is not registered under DistributedPlugin.";
        Plugin fsdp2 = make_plugin("fsdp2", fsdp2_keys(), true, "FSDP2Params");
        Plugin turbo = make_plugin("fsdpturbo", fsdp2_keys(), true, "FSDPTurboParams");
        for (const char* k :
             {"ep_size", "ep_dispatcher", "fsdp_ignored_modules", "hook_modules", "fsdp_implementation"})
            turbo.keys.emplace_back(k);
        turbo.expert_parallel = true;
        turbo.spec_models = {"qwen3_moe", "qwen3_5_moe"};
        turbo.no_spec_error = "No FSDPTurbo EP spec is registered for model_type={model_type}.";
        Plugin ds = make_plugin("deepspeed", {"name", "config_file"}, true, "DeepSpeedParams");
        ds.cp_error = "Context parallelism currently requires `dist_config.name: fsdp2`.";  // core/base_trainer.py
        v.plugins = {fsdp2, turbo, ds};
        out.push_back(v);
    }
    {
        Version v;
        v.id = "2026-07-24";
        v.arguments = arguments_2026_07_24();
        v.commit = "3f7710158067d07d123e6b15086435c8097fb724";
        v.date = "2026-07-24";
        v.source = "main (#10641, refactor registry plugin structure and params)";
        v.summary =
            "topology moves to the top level (MeshConfig fields of TrainingArguments); dist_config parsed strictly; "
            "no fsdpturbo";
        v.checks_world_by_cp = true;
        v.checks_world_by_mp_replicate = true;
        v.unknown_plugin_error = "Plugin '{name}' is not registered under DistributedPlugin.";
        Plugin ds = make_plugin("deepspeed", {"name", "config_file"}, true, "DeepSpeedParams");
        ds.cp_error = "Context parallelism currently requires `dist_config.name: fsdp2`.";
        v.plugins = {make_plugin("fsdp2", fsdp2_keys(), true, "FSDP2Params"), ds};
        out.push_back(v);
    }
    for (const bool turbo : {true, false}) {
        // Pull request #10676 before it was rebased onto #10641: the topology, ep_size included, still in
        // dist_config, which is a plain dict (unknown keys are ignored).
        Version v;
        v.id = turbo ? "pr10676-b8b6398" : "pr10676-c6437cb";
        v.arguments = arguments_pr10676();
        v.commit = turbo ? "b8b639804edf9fea1758ed6484c5ed99a1f1f4df" : "c6437cb08169781894a32f0f97f566a85cc89af7";
        v.date = "2026-07-22";
        v.source = "pull request #10676";
        v.summary = turbo ? "topology and ep_size inside dist_config; fsdpturbo reads ep_modules, ep_fsdp_modules, "
                            "fsdp_modules, hook_modules from it; unknown keys ignored"
                          : "as pr10676-b8b6398 with the plugin named mindspeed_fsdp2";
        v.topology_in_dist_config = true;
        v.ep_in_strategy = true;
        v.checks_world_by_cp = true;
        v.checks_world_by_mp_replicate = true;
        v.unknown_plugin_error = "Method __call__ of plugin {name} is not registered.";  // utils/plugin.py
        Plugin ds = make_plugin("deepspeed", with_topology({"name", "config_file"}, true));
        ds.cp_error = "CP currently requires `dist_config.name: fsdp2`.";  // trainer_plugins/distributed/hub.py
        Plugin fsdp2 = make_plugin("fsdp2", with_topology(fsdp2_keys(), true));
        v.plugins = {fsdp2,
                     turbo
                         ? pr_expert_plugin("fsdpturbo", true, {"qwen3_moe"})
                         : pr_expert_plugin("mindspeed_fsdp2", false, {"qwen3_moe", "qwen3_5_moe", "qwen3_5_moe_text"}),
                     ds};
        out.push_back(v);
    }
    {
        Version v;
        v.id = "0.9.5";
        v.arguments = arguments_0_9_5();
        v.commit = "7af909522a951e3ad9f022ea6f88b6755257eaa5";
        v.date = "2026-05-30";
        v.source = "tag v0.9.5";
        v.summary = "topology inside dist_config; fsdp2 and deepspeed only; no expert parallelism";
        v.topology_in_dist_config = true;
        v.unknown_plugin_error = "Method __call__ of plugin {name} is not registered.";
        Plugin ds = make_plugin("deepspeed", with_topology({"name", "config_file"}, false));
        ds.cp_error = "CP currently requires `dist_config.name: fsdp2`.";
        v.plugins = {make_plugin("fsdp2", with_topology(fsdp2_keys(), false)), ds};
        out.push_back(v);
    }
    return out;
}

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

std::vector<std::string_view> split(std::string_view text) {
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    while (true) {
        const auto dot = text.find('.', start);
        parts.push_back(text.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
        if (dot == std::string_view::npos) break;
        start = dot + 1;
    }
    return parts;
}
}  // namespace

const Plugin* Version::plugin(std::string_view name) const {
    for (const auto& p : plugins)
        if (p.name == name) return &p;
    return nullptr;
}

const std::vector<std::string>& Version::topology_keys() {
    static const std::vector<std::string> keys{"dp_size", "cp_size", "cp_mode", "mp_replicate_size", "mp_shard_size"};
    return keys;
}

const std::vector<Version>& versions() {
    static const std::vector<Version> all = make_versions();
    return all;
}

const Version* find_version(std::string_view name) {
    const std::string wanted = lower(name);
    if (wanted == "latest" || wanted == "newest") return &versions().front();
    for (const auto& v : versions()) {
        if (wanted == v.id || (v.source == "tag v" + v.id && (wanted == "v" + v.id))) return &v;
        const bool hex = wanted.size() >= 7 && std::all_of(wanted.begin(), wanted.end(),
                                                           [](unsigned char c) { return std::isxdigit(c) != 0; });
        if (hex && v.commit.rfind(wanted, 0) == 0) return &v;
    }
    return nullptr;
}

std::string known_version_ids() {
    std::string out;
    for (const auto& v : versions()) out += (out.empty() ? "" : ", ") + v.id;
    return out;
}

bool module_name_match(std::string_view pattern, std::string_view name) {
    const auto p = split(pattern);
    const auto n = split(name);
    if (p.size() != n.size()) return false;
    for (std::size_t i = 0; i < p.size(); ++i)
        if (p[i] != "{*}" && p[i] != n[i]) return false;
    return true;
}

std::vector<std::string> module_names(std::string_view model_type, std::int64_t layers,
                                      const std::vector<std::int64_t>& linear_layers,
                                      const std::vector<std::int64_t>& dense_layers) {
    std::vector<std::string> out;
    auto has = [](const std::vector<std::int64_t>& list, std::int64_t i) {
        return std::find(list.begin(), list.end(), i) != list.end();
    };
    if (model_type == "qwen3_5_moe" || model_type == "qwen3_5_moe_text") {
        // Qwen3_5MoeForConditionalGeneration: model.language_model (the text model) beside model.visual; the text
        // model alone (Qwen3_5MoeForCausalLM) is model.*.
        const std::string root = model_type == "qwen3_5_moe" ? "model.language_model" : "model";
        out = {root, root + ".embed_tokens", root + ".norm", "lm_head"};
        if (model_type == "qwen3_5_moe") out.insert(out.end(), {"model", "model.visual"});
        for (std::int64_t i = 0; i < layers; ++i) {
            const std::string l = root + ".layers." + std::to_string(i);
            out.insert(out.end(), {l, l + ".input_layernorm", l + ".post_attention_layernorm", l + ".mlp",
                                   l + ".mlp.gate", l + ".mlp.experts", l + ".mlp.shared_expert",
                                   l + ".mlp.shared_expert.gate_proj", l + ".mlp.shared_expert.up_proj",
                                   l + ".mlp.shared_expert.down_proj", l + ".mlp.shared_expert_gate"});
            if (has(linear_layers, i))
                for (const char* m :
                     {"", ".in_proj_qkv", ".in_proj_z", ".in_proj_b", ".in_proj_a", ".conv1d", ".norm", ".out_proj"})
                    out.push_back(l + ".linear_attn" + m);
            else
                for (const char* m : {"", ".q_proj", ".k_proj", ".v_proj", ".o_proj", ".q_norm", ".k_norm"})
                    out.push_back(l + ".self_attn" + m);
        }
    } else if (model_type == "qwen3_moe") {
        // Qwen3MoeForCausalLM: a sparse block (gate, experts) unless the layer is dense (gate/up/down_proj).
        out = {"model", "model.embed_tokens", "model.norm", "lm_head"};
        for (std::int64_t i = 0; i < layers; ++i) {
            const std::string l = "model.layers." + std::to_string(i);
            out.insert(out.end(),
                       {l, l + ".input_layernorm", l + ".post_attention_layernorm", l + ".mlp", l + ".self_attn",
                        l + ".self_attn.q_proj", l + ".self_attn.k_proj", l + ".self_attn.v_proj",
                        l + ".self_attn.o_proj", l + ".self_attn.q_norm", l + ".self_attn.k_norm"});
            if (has(dense_layers, i))
                out.insert(out.end(), {l + ".mlp.gate_proj", l + ".mlp.up_proj", l + ".mlp.down_proj"});
            else
                out.insert(out.end(), {l + ".mlp.gate", l + ".mlp.experts"});
        }
    }
    return out;
}

std::string spec_experts(std::string_view model_type) {
    if (model_type == "qwen3_moe" || model_type == "qwen3_5_moe_text") return "model.layers.{*}.mlp.experts";
    if (model_type == "qwen3_5_moe") return "model.language_model.layers.{*}.mlp.experts";
    return "";
}

std::string python_list(std::vector<std::string> items) {
    std::sort(items.begin(), items.end());
    std::string out = "[";
    for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", '" : "'") + items[i] + "'";
    return out + "]";
}

}  // namespace meshscope::app::llamafactory
