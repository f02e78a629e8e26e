// A Hugging Face config.json read into a ModelSpec: the Qwen3-MoE, DeepSeek-V3, Mixtral and Qwen3.5-MoE field names
// (Qwen3.5-MoE's text model under "text_config").
#pragma once

#include <string>
#include <string_view>

#include "meshscope/cost/model_spec.h"
#include "meshscope/mesh/error.h"

namespace meshscope::cost {

// The architectures read, as config.json's "architectures" names them.
inline constexpr std::string_view known_architectures =
    "Qwen3MoeForCausalLM, DeepseekV3ForCausalLM, MixtralForCausalLM, Qwen3_5MoeForConditionalGeneration, "
    "Qwen3_5MoeForCausalLM";

// `source` names the file in messages. Errors (ValueError), with FILE the source:
//   "FILE is not valid JSON (byte 17)."
//   "FILE names no architecture: expected \"architectures\": [...] or \"model_type\"."
//   "FILE: unknown architecture 'LlamaForCausalLM'; known: Qwen3MoeForCausalLM, DeepseekV3ForCausalLM,
//   MixtralForCausalLM" "FILE: missing field 'num_experts' (Qwen3MoeForCausalLM)" "FILE: field 'num_experts' must be a
//   positive integer, got \"many\""
[[nodiscard]] Expected<ModelSpec> model_from_hf_config(std::string_view json_text, std::string_view source);

// Reads the file first: "cannot read model config 'FILE': No such file or directory".
[[nodiscard]] Expected<ModelSpec> load_hf_config(const std::string& path);

}  // namespace meshscope::cost
