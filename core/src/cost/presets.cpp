#include "meshscope/cost/presets.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace meshscope::cost {

namespace {
ModelSpec qwen3_moe(std::string name, std::int64_t layers, std::int64_t hidden, std::int64_t heads,
                    std::int64_t expert_ffn, std::int64_t dense_ffn) {
    ModelSpec m;
    m.name = std::move(name);
    m.layers = layers;
    m.hidden = hidden;
    m.vocab = 151936;
    m.standard = StandardAttention{heads, 4, 128, true};
    m.routed_experts = 128;
    m.top_k = 8;
    m.expert_ffn = expert_ffn;
    m.dense_ffn = dense_ffn;
    return m;
}

ModelSpec deepseek_v3() {
    ModelSpec m;
    m.name = "deepseek-v3";
    m.layers = 61;
    m.hidden = 7168;
    m.vocab = 129280;
    m.attention = AttentionKind::latent;
    m.latent = LatentAttention{128, 1536, 512, 128, 64, 128};
    m.routed_experts = 256;
    m.top_k = 8;
    m.expert_ffn = 2048;
    m.shared_experts = 1;
    m.shared_expert_ffn = 2048;
    m.dense_ffn = 18432;
    m.dense_layers = {0, 1, 2};  // first_k_dense_replace = 3
    m.mtp_layers = 1;            // num_nextn_predict_layers
    return m;
}

// Qwen3.5-35B-A3B's text model (text_config of its config.json; transformers' Qwen3_5MoeTextConfig defaults are
// the same values): 40 layers, every fourth full attention (layers 3, 7, ..., 39) with the output gate, the others
// Gated DeltaNet; every layer MoE with one gated shared expert. The vision tower is left out (model_class: llm), and
// so is the MTP module (transformers' Qwen3_5Moe classes do not build it, so LlamaFactory does not train it).
ModelSpec qwen3_5_35b_a3b() {
    ModelSpec m;
    m.name = "qwen3.5-35b-a3b";
    m.layers = 40;
    m.hidden = 2048;
    m.vocab = 248320;
    m.standard = StandardAttention{16, 2, 256, true, true};
    m.linear = LinearAttention{16, 32, 128, 128, 4, 64};
    for (std::int64_t i = 0; i < m.layers; ++i)
        if ((i + 1) % 4 != 0) m.linear_layers.push_back(i);
    m.routed_experts = 256;
    m.top_k = 8;
    m.expert_ffn = 512;
    m.shared_experts = 1;
    m.shared_expert_ffn = 512;
    m.shared_expert_gate = true;
    return m;
}

ModelSpec mixtral_8x7b() {
    ModelSpec m;
    m.name = "mixtral-8x7b";
    m.layers = 32;
    m.hidden = 4096;
    m.vocab = 32000;
    m.standard = StandardAttention{32, 8, 128, false};
    m.routed_experts = 8;
    m.top_k = 2;
    m.expert_ffn = 14336;
    m.dense_ffn = 14336;
    return m;
}

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}
}  // namespace

const std::vector<ModelSpec>& model_presets() {
    // Values from each model's config.json on the Hugging Face Hub (Qwen/Qwen3-30B-A3B, Qwen/Qwen3-235B-A22B,
    // deepseek-ai/DeepSeek-V3, mistralai/Mixtral-8x7B-v0.1, Qwen/Qwen3.5-35B-A3B); the files are
    // tests/cost/configs/*.json.
    static const std::vector<ModelSpec> presets{
        qwen3_moe("qwen3-30b-a3b", 48, 2048, 32, 768, 6144),
        qwen3_moe("qwen3-235b-a22b", 94, 4096, 64, 1536, 12288),
        deepseek_v3(),
        mixtral_8x7b(),
        qwen3_5_35b_a3b(),
    };
    return presets;
}

Expected<ModelSpec> find_model_preset(std::string_view name) {
    const std::string wanted = lower(name);
    for (const auto& m : model_presets())
        if (m.name == wanted) return m;
    std::string known;
    for (const auto& m : model_presets()) known += (known.empty() ? "" : ", ") + m.name;
    return ValueError("unknown model '" + std::string(name) + "'; known: " + known);
}

}  // namespace meshscope::cost
