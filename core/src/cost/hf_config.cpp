// Field names and defaults as the transformers configuration classes define them (Qwen3MoeConfig,
// DeepseekV3Config, MixtralConfig, Qwen3_5MoeTextConfig); which layers are MoE, and which have linear attention,
// as their modeling code decides it.
#include "meshscope/cost/hf_config.h"

#include "cost/json_object.h"
#include "meshscope/mesh/json_limits.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

namespace meshscope::cost {

namespace {
using nlohmann::json;

// Reads fields for one architecture; the first problem becomes the error.
class Fields {
public:
    Fields(const json& doc, std::string_view source, std::string architecture)
        : doc_(doc), source_(source), architecture_(std::move(architecture)) {}

    std::int64_t required(const char* name) {
        if (error_) return 0;
        const auto it = doc_.find(name);
        if (it == doc_.end() || it->is_null()) {
            fail("missing field '" + std::string(name) + "' (" + architecture_ + ")");
            return 0;
        }
        return positive(name, *it);
    }
    // Absent or null takes the default; present must be a non-negative integer.
    std::int64_t optional(const char* name, std::int64_t fallback) {
        if (error_) return fallback;
        const auto it = doc_.find(name);
        if (it == doc_.end() || it->is_null()) return fallback;
        if (!it->is_number_integer() || it->get<std::int64_t>() < 0) {
            fail("field '" + std::string(name) + "' must be a non-negative integer, got " + it->dump());
            return fallback;
        }
        return it->get<std::int64_t>();
    }
    bool flag(const char* name, bool fallback) {
        if (error_) return fallback;
        const auto it = doc_.find(name);
        if (it == doc_.end() || it->is_null()) return fallback;
        if (!it->is_boolean()) {
            fail("field '" + std::string(name) + "' must be true or false, got " + it->dump());
            return fallback;
        }
        return it->get<bool>();
    }
    std::vector<std::int64_t> indices(const char* name) {
        return list_of<std::int64_t>(name, "a list of layer indices",
                                     [](const json& v) { return v.is_number_integer() && v.get<std::int64_t>() >= 0; });
    }
    // A list of strings (layer_types); absent or null: empty.
    std::vector<std::string> names(const char* name) {
        return list_of<std::string>(name, "a list of strings", [](const json& v) { return v.is_string(); });
    }
    // A list whose every item `fits`; absent or null: empty; otherwise the field's message, naming `what`.
    template <class T, class Fits>
    std::vector<T> list_of(const char* name, const char* what, Fits&& fits) {
        std::vector<T> out;
        if (error_) return out;
        const auto it = doc_.find(name);
        if (it == doc_.end() || it->is_null()) return out;
        if (!it->is_array() || !std::all_of(it->begin(), it->end(), fits)) {
            fail("field '" + std::string(name) + "' must be " + what + ", got " + it->dump());
            return out;
        }
        for (const auto& v : *it) out.push_back(v.get<T>());
        return out;
    }
    void fail_with(const std::string& message) {
        if (!error_) fail(message);
    }
    [[nodiscard]] const std::optional<Error>& error() const { return error_; }

private:
    std::int64_t positive(const char* name, const json& value) {
        if (!value.is_number_integer() || value.get<std::int64_t>() < 1) {
            fail("field '" + std::string(name) + "' must be a positive integer, got " + value.dump());
            return 0;
        }
        return value.get<std::int64_t>();
    }
    void fail(const std::string& message) { error_ = ValueError(std::string(source_) + ": " + message); }

    const json& doc_;
    std::string_view source_;
    std::string architecture_;
    std::optional<Error> error_;
};

// The sizes and the grouped-query attention that Qwen3-MoE and Mixtral configs write alike, in the order their
// fields are checked.
void read_standard_attention(Fields& f, ModelSpec& m) {
    m.hidden = f.required("hidden_size");
    m.layers = f.required("num_hidden_layers");
    m.vocab = f.required("vocab_size");
    m.standard.heads = f.required("num_attention_heads");
    m.standard.kv_heads = f.required("num_key_value_heads");
    m.standard.head_dim = f.optional("head_dim", m.standard.heads > 0 ? m.hidden / m.standard.heads : 0);
}

void read_qwen3_moe(Fields& f, ModelSpec& m) {
    read_standard_attention(f, m);
    m.standard.qk_norm = true;
    m.tied_embeddings = f.flag("tie_word_embeddings", false);
    m.routed_experts = f.required("num_experts");
    m.top_k = f.required("num_experts_per_tok");
    m.expert_ffn = f.required("moe_intermediate_size");
    m.dense_ffn = f.required("intermediate_size");
    const std::int64_t step = f.optional("decoder_sparse_step", 1);
    const auto mlp_only = f.indices("mlp_only_layers");
    // Qwen3MoeDecoderLayer: experts unless listed in mlp_only_layers or off the decoder_sparse_step.
    for (std::int64_t i = 0; i < m.layers; ++i) {
        const bool listed = std::find(mlp_only.begin(), mlp_only.end(), i) != mlp_only.end();
        if (listed || step < 1 || (i + 1) % step != 0) m.dense_layers.push_back(i);
    }
}

void read_deepseek_v3(Fields& f, ModelSpec& m) {
    m.attention = AttentionKind::latent;
    m.hidden = f.required("hidden_size");
    m.layers = f.required("num_hidden_layers");
    m.vocab = f.required("vocab_size");
    m.latent.heads = f.required("num_attention_heads");
    m.latent.q_lora_rank = f.optional("q_lora_rank", 0);
    m.latent.kv_lora_rank = f.required("kv_lora_rank");
    m.latent.qk_nope_head_dim = f.required("qk_nope_head_dim");
    m.latent.qk_rope_head_dim = f.required("qk_rope_head_dim");
    m.latent.v_head_dim = f.required("v_head_dim");
    m.tied_embeddings = f.flag("tie_word_embeddings", false);
    m.routed_experts = f.required("n_routed_experts");
    m.top_k = f.required("num_experts_per_tok");
    m.expert_ffn = f.required("moe_intermediate_size");
    m.shared_experts = f.optional("n_shared_experts", 0);
    m.shared_expert_ffn = m.shared_experts > 0 ? m.expert_ffn : 0;
    m.dense_ffn = f.required("intermediate_size");
    const std::int64_t first_dense = f.optional("first_k_dense_replace", 0);
    const std::int64_t freq = f.optional("moe_layer_freq", 1);
    m.mtp_layers = f.optional("num_nextn_predict_layers", 0);
    // DeepseekV3DecoderLayer: experts from first_k_dense_replace on, every moe_layer_freq-th layer.
    for (std::int64_t i = 0; i < m.layers; ++i)
        if (i < first_dense || freq < 1 || i % freq != 0) m.dense_layers.push_back(i);
}

// Qwen3_5MoeTextConfig (the text_config of Qwen3_5MoeConfig): its defaults are Qwen3.5-35B-A3B's values.
// layer_types, or else every full_attention_interval-th layer full attention; every layer MoE.
void read_qwen3_5_moe(Fields& f, ModelSpec& m) {
    m.hidden = f.optional("hidden_size", 2048);
    m.layers = f.optional("num_hidden_layers", 40);
    m.vocab = f.optional("vocab_size", 248320);
    m.standard.heads = f.optional("num_attention_heads", 16);
    m.standard.kv_heads = f.optional("num_key_value_heads", 2);
    m.standard.head_dim = f.optional("head_dim", 256);
    m.standard.qk_norm = true;
    m.standard.output_gate = f.flag("attn_output_gate", true);
    m.linear.key_heads = f.optional("linear_num_key_heads", 16);
    m.linear.value_heads = f.optional("linear_num_value_heads", 32);
    m.linear.key_head_dim = f.optional("linear_key_head_dim", 128);
    m.linear.value_head_dim = f.optional("linear_value_head_dim", 128);
    m.linear.conv_kernel = f.optional("linear_conv_kernel_dim", 4);
    m.tied_embeddings = f.flag("tie_word_embeddings", false);
    m.routed_experts = f.optional("num_experts", 256);
    m.top_k = f.optional("num_experts_per_tok", 8);
    m.expert_ffn = f.optional("moe_intermediate_size", 512);
    m.shared_experts = 1;
    m.shared_expert_ffn = f.optional("shared_expert_intermediate_size", 512);
    m.shared_expert_gate = true;
    if (const auto types = f.names("layer_types"); !types.empty()) {
        if (static_cast<std::int64_t>(types.size()) != m.layers) {
            f.fail_with("layer_types has " + std::to_string(types.size()) + " entries for " + std::to_string(m.layers) +
                        " layers");
            return;
        }
        for (std::size_t i = 0; i < types.size(); ++i) {
            if (types[i] == "linear_attention")
                m.linear_layers.push_back(static_cast<std::int64_t>(i));
            else if (types[i] != "full_attention") {
                f.fail_with("layer_types[" + std::to_string(i) + "] must be linear_attention or full_attention, got '" +
                            types[i] + "'");
                return;
            }
        }
    } else {
        const std::int64_t interval = f.optional("full_attention_interval", 4);
        for (std::int64_t i = 0; i < m.layers; ++i)
            if (interval < 1 || (i + 1) % interval != 0) m.linear_layers.push_back(i);
    }
}

void read_mixtral(Fields& f, ModelSpec& m) {
    read_standard_attention(f, m);
    m.tied_embeddings = f.flag("tie_word_embeddings", false);
    m.routed_experts = f.required("num_local_experts");
    m.top_k = f.required("num_experts_per_tok");
    m.expert_ffn = f.required("intermediate_size");
    m.dense_ffn = m.expert_ffn;
}

struct Reader {
    std::string_view architecture;
    std::string_view model_type;
    void (*read)(Fields&, ModelSpec&);
};
constexpr Reader readers[] = {
    {"Qwen3MoeForCausalLM", "qwen3_moe", read_qwen3_moe},
    {"DeepseekV3ForCausalLM", "deepseek_v3", read_deepseek_v3},
    {"MixtralForCausalLM", "mixtral", read_mixtral},
    {"Qwen3_5MoeForConditionalGeneration", "qwen3_5_moe", read_qwen3_5_moe},
    {"Qwen3_5MoeForCausalLM", "qwen3_5_moe_text", read_qwen3_5_moe},
};
}  // namespace

Expected<ModelSpec> model_from_hf_config(std::string_view json_text, std::string_view source) {
    const std::string src(source);
    auto read = detail::read_json_object(json_text, src);
    if (!read) return read.error();
    const json doc = std::move(read).value();
    // "architectures" names the class transformers instantiates; "model_type" is the fallback older files carry.
    std::string name;
    const auto arch = doc.find("architectures");
    if (arch != doc.end() && arch->is_array() && !arch->empty() && arch->front().is_string())
        name = arch->front().get<std::string>();
    else if (const auto type = doc.find("model_type"); type != doc.end() && type->is_string())
        name = type->get<std::string>();
    else
        return ValueError(src + " names no architecture: expected \"architectures\": [...] or \"model_type\".");
    for (const auto& r : readers) {
        if (name != r.architecture && name != r.model_type) continue;
        ModelSpec m;
        m.name = src;
        // Qwen3.5's config nests the text model under "text_config" (the vision tower beside it is left out).
        const auto text = doc.find("text_config");
        const json& fields_doc = text != doc.end() && text->is_object() ? *text : doc;
        Fields fields(fields_doc, source, std::string(r.architecture));
        r.read(fields, m);
        if (fields.error()) return *fields.error();
        return m;
    }
    return ValueError(src + ": unknown architecture '" + name + "'; known: " + std::string(known_architectures));
}

Expected<ModelSpec> load_hf_config(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return ValueError("cannot read model config '" + path + "': " + std::strerror(errno));
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) return ValueError("cannot read model config '" + path + "': " + std::strerror(errno));
    return model_from_hf_config(text.str(), path);
}

}  // namespace meshscope::cost
