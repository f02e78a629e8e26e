#include <algorithm>

#include "meshscope/cost/model_spec.h"

namespace meshscope::cost {

bool ModelSpec::last_layer_is_moe() const noexcept {
    return layers > 0 && std::find(dense_layers.begin(), dense_layers.end(), layers - 1) == dense_layers.end() &&
           routed_experts > 0;
}

std::int64_t ModelSpec::query_heads() const noexcept {
    return attention == AttentionKind::latent ? latent.heads : standard.heads;
}

std::int64_t ModelSpec::key_value_heads() const noexcept {
    return attention == AttentionKind::latent ? latent.heads : standard.kv_heads;
}

std::int64_t ModelSpec::q_width() const noexcept {
    if (attention == AttentionKind::latent) return latent.heads * (latent.qk_nope_head_dim + latent.qk_rope_head_dim);
    return standard.heads * standard.head_dim;
}

std::int64_t ModelSpec::k_width() const noexcept {
    if (attention == AttentionKind::latent) return latent.heads * (latent.qk_nope_head_dim + latent.qk_rope_head_dim);
    return standard.kv_heads * standard.head_dim;
}

std::int64_t ModelSpec::v_width() const noexcept {
    if (attention == AttentionKind::latent) return latent.heads * latent.v_head_dim;
    return standard.kv_heads * standard.head_dim;
}

std::int64_t ModelSpec::attention_out_width() const noexcept {
    if (attention == AttentionKind::latent) return latent.heads * latent.v_head_dim;
    return standard.heads * standard.head_dim;
}

}  // namespace meshscope::cost
