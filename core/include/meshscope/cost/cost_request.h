// CostRequest: the cost inputs as a person types them (the CLI's flags, GET /api/v1/advise's query, the desktop
// Planner's form), judged by the core in one order with one set of messages, the way PlanRequest judges a plan's.
// A rejection names the input that is wrong (CostField), so every front end marks that input without reading the
// message.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "meshscope/cost/cluster_profile.h"
#include "meshscope/cost/inputs.h"

namespace meshscope::cost {

// The inputs a rejection can be about; to_string gives the names the advise API's "field", the form's errorField
// and the messages use.
enum class CostField {
    none,
    model,
    model_config,
    hardware,
    network,
    gpus_per_node,
    seq,
    micro_batch,
    grad_accum,
    global_batch,
    recompute,
    loss_chunks,
    overlap_a2a,
    efficiency,
};

// "model", "model_config", "hardware", "network", "gpus_per_node", "seq", "micro_batch", "grad_accum",
// "global_batch", "recompute", "loss_chunks", "overlap_a2a", "efficiency"; "" for none.
[[nodiscard]] std::string_view to_string(CostField field) noexcept;

struct CostRequest {
    std::string model;         // a preset name (find_model_preset)
    std::string model_config;  // or a Hugging Face config.json; when set, model is not read
    std::string hardware = "h100";
    std::string network = "ndr";
    std::int64_t gpus_per_node = 0;  // the plan's (checked with it); 0: the hardware's own
    // Whole decimal integers, as typed.
    std::string seq = "4096";
    std::string micro_batch = "1";
    std::string grad_accum = "1";
    std::string global_batch = "0";  // sequences per step on every layout; 0: world x micro_batch x grad_accum
    std::string recompute = "selective";
    std::string loss_chunks = "1";
    std::string overlap_a2a = "0";  // "0" or "1"
    std::string efficiency;         // a flat share of the peak in (0, 1]; empty: compute by shape x calibration
    // The user's cluster profile (the Planners' `--cluster-profile FILE`): its constants replace the presets' where
    // its hardware is the request's (use_cluster_profile); null: the presets.
    std::shared_ptr<const LoadedClusterProfile> cluster_profile;
};

struct CostRejection {
    CostField field = CostField::none;
    std::string message;
};

// The inputs, or why not.
struct CostAnswer {
    std::optional<CostInputs> inputs;
    std::optional<CostRejection> rejection;
    ClusterConstants constants;  // with inputs: the calibration and bandwidths they use, and where each comes from
};

// What every front end calls. Checks in this order, the first failure being the rejection (its exact text):
//   model         "give model" (neither model nor model_config), find_model_preset's or load_hf_config's message
//   seq, micro_batch, grad_accum, loss_chunks
//                 "seq expects an integer, got 'x'."  "seq is out of range, got '...'."  "seq must be positive, got 0."
//   global_batch  the same parse messages, "global_batch must be at least 0, got -5."
//   recompute     read_recompute's "recompute must be one of none, selective, ..., got 'some'"
//   overlap_a2a   "overlap_a2a must be 0 or 1, got 'yes'."
//   hardware, network, gpus_per_node   make_cluster's messages
//   efficiency    "efficiency must be a number in (0, 1], got '1.5'."
// then applies the cluster profile, if any.
[[nodiscard]] CostAnswer cost_answer(const CostRequest& request);

}  // namespace meshscope::cost
