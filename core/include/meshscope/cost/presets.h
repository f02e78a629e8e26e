// Model presets: the published configurations of the models users ask about, by case-insensitive name.
#pragma once

#include <string_view>
#include <vector>

#include "meshscope/cost/model_spec.h"
#include "meshscope/mesh/error.h"

namespace meshscope::cost {

// qwen3-30b-a3b, qwen3-235b-a22b, deepseek-v3, mixtral-8x7b: each written from the model's public config.json
// (kept as a test fixture in tests/cost/configs/).
[[nodiscard]] const std::vector<ModelSpec>& model_presets();

// "unknown model 'llama'; known: qwen3-30b-a3b, qwen3-235b-a22b, deepseek-v3, mixtral-8x7b"
[[nodiscard]] Expected<ModelSpec> find_model_preset(std::string_view name);

}  // namespace meshscope::cost
