// meshscope.cluster-profile/1: the cost model's constants fitted on one cluster (`meshscope calibrate`), each with
// where it came from, and the evidence it was fitted on: the layouts seen (measured against predicted step time)
// and the NCCL communicators measured (docs/calibrate.md).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "meshscope/cost/cluster.h"
#include "meshscope/mesh/error.h"

namespace meshscope::cost {

inline constexpr std::string_view cluster_profile_schema = "meshscope.cluster-profile/1";

// Where a constant's value comes from: the hardware or network preset (docs/cost-model.md), or a fit on what the
// user's cluster measured.
enum class ConstantSource { preset, fitted };
[[nodiscard]] std::string_view to_string(ConstantSource source) noexcept;

struct ProfileConstant {
    double value = 0;
    ConstantSource source = ConstantSource::preset;
    std::string basis;  // what it was fitted on, or which preset it is ("h100 preset")
};

// One layout a training log measured: the run's inputs, the measured step time and the model's predictions.
struct LayoutEvidence {
    std::string source;  // the log file
    std::string model;
    std::int64_t dp = 1, cp = 1, ep = 1, gpus_per_node = 8;
    std::int64_t seq = 0, micro_batch = 1, grad_accum = 1;
    double measured_seconds = 0;   // a step, from the log
    double preset_seconds = 0;     // predicted with the presets' constants
    double predicted_seconds = 0;  // predicted with the profile's constants
    double calibration = 0;        // the calibration this layout alone implies
};

// One communicator and collective NCCL Inspector measured, and the mesh dim it was placed on.
struct CommEvidence {
    std::string source;  // the Inspector file
    std::string comm;    // comm_name, or the communicator's id where it has no name
    std::string collective;
    std::int64_t nranks = 0, nnodes = 0;
    std::int64_t samples = 0;
    double bus_gbps = 0;  // the bandwidth the model's collective time implies over these samples
    std::string link;     // "intra_node" or "inter_node" (nnodes > 1)
    std::string placed;   // "data.dp", "world", ...; empty when not placed
    std::string why;      // why it was not placed, or which dims it could be
};

struct ClusterProfile {
    std::string hardware;  // the preset it was fitted against
    std::string network;
    std::int64_t gpus_per_node = 8;
    ProfileConstant calibration;      // ClusterSpec::calibration
    ProfileConstant intra_node_gbps;  // ClusterSpec::intra.bus_gbps (NVLink)
    ProfileConstant inter_node_gbps;  // ClusterSpec::inter.bus_gbps (one NIC per GPU)
    std::vector<LayoutEvidence> layouts;
    std::vector<CommEvidence> communicators;
};

[[nodiscard]] nlohmann::ordered_json cluster_profile_json(const ClusterProfile& profile);

// `source` names the file in messages. Errors (ValueError), with FILE the source:
//   "FILE is not valid JSON (byte 17)."                 "FILE is not a JSON object."
//   "FILE: missing field 'format'"                      "FILE: field 'format' must be
//   \"meshscope.cluster-profile/1\", got \"x\""          "FILE: unknown hardware 'x100'; known: a100, h100, h200, b200,
//   gb200" "FILE: field 'constants.calibration.value' must be a number in (0, 2], got 3" "FILE: field
//   'constants.inter_node_gbps.source' must be \"preset\" or \"fitted\", got \"guess\"" "FILE: field
//   'evidence.layouts[0].dp' must be a positive integer, got -1"
[[nodiscard]] Expected<ClusterProfile> cluster_profile_from_json(std::string_view json_text, std::string_view source);
// Reads the file first: "cannot read cluster profile 'FILE': No such file or directory".
[[nodiscard]] Expected<ClusterProfile> load_cluster_profile(const std::string& path);

// The profile's constants on a cluster of the same hardware: calibration, intra- and inter-node bus bandwidth.
// "the cluster profile was fitted on h100; the cluster is h200" (ValueError) otherwise.
[[nodiscard]] Expected<ClusterSpec> apply_cluster_profile(ClusterSpec cluster, const ClusterProfile& profile);

// "calibration 0.486 (fitted: step time of dp 8, cp 1, ep 8 from train.log); NVLink 360 GB/s (fitted: ...);
// network 50 GB/s (preset: ndr)": which constants come from the user's cluster and which are defaults.
[[nodiscard]] std::string profile_constants_text(const ClusterProfile& profile);

// The constants of a preset cluster, each marked preset: what a profile starts from.
[[nodiscard]] ClusterProfile preset_profile(const ClusterSpec& cluster);

// A cluster profile as the user gave it (`--cluster-profile FILE`): its name on screen and in messages (the file).
struct LoadedClusterProfile {
    std::string file;
    ClusterProfile profile;
};

// One constant a cluster profile can set, as a cost uses it: its value and where it comes from (fitted: the user's
// cluster profile; preset: the hardware's or network's default).
struct ClusterConstant {
    std::string name;   // "calibration", "intra_node_gbps", "inter_node_gbps"
    std::string label;  // "compute calibration", "NVLink bandwidth", "network bandwidth"
    std::string unit;   // "" or "GB/s"
    ProfileConstant constant;
};

// The constants one cost used, and the cluster profile they came from.
struct ClusterConstants {
    std::string file;  // the cluster profile's; "" without one
    // Why the profile does not apply ("the cluster profile was fitted on h200; the cluster is h100"): the constants
    // are then the presets'. "" when it applies or there is none.
    std::string note;
    std::vector<ClusterConstant> constants;  // calibration, intra_node_gbps, inter_node_gbps
};

// The cluster with the profile's constants where its hardware matches (apply_cluster_profile), and which they are.
// Without a profile, or on another GPU (then with the note), the presets'.
[[nodiscard]] ClusterConstants use_cluster_profile(ClusterSpec& cluster, const LoadedClusterProfile* profile);

// {"file": "cluster.json" | null, "note": "", "constants": {"calibration": {"value", "source", "basis", "label",
// "unit"}, "intra_node_gbps": {...}, "inter_node_gbps": {...}}}: the profile's own "constants" shape.
[[nodiscard]] nlohmann::ordered_json cluster_constants_json(const ClusterConstants& constants);

}  // namespace meshscope::cost
