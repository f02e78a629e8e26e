// `meshscope calibrate`'s reading and fitting (docs/calibrate.md): a training log's step time (Hugging Face
// Trainer's final metrics, LlamaFactory's timestamped step lines) -> the compute calibration that makes the model
// predict it; NCCL Inspector's JSON lines or Prometheus metrics -> per communicator and collective the bus
// bandwidth, placed on the layout's mesh dims -> the intra- and inter-node bandwidths.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "meshscope/cost/cluster_profile.h"
#include "meshscope/cost/layout_cost.h"
#include "meshscope/cost/mesh_dims.h"
#include "meshscope/mesh/error.h"

namespace meshscope::cost {

// The step time a training log measured.
struct StepTime {
    double seconds = 0;           // one optimizer step
    std::int64_t steps = 0;       // the steps it was measured over
    std::int64_t loss_lines = 0;  // logging steps seen ({'loss': ...} or LlamaFactory's "loss: ...")
    std::string how;              // "train_runtime 120.5 s over 100 steps (Hugging Face Trainer's final metrics)"
};

// Hugging Face Trainer's final metrics ({'train_runtime': 120.5, 'train_samples_per_second': ...,
// 'train_steps_per_second': 0.83, ...}: the steps are runtime x steps per second, rounded), else LlamaFactory v1's
// logging lines "[INFO|2026-01-02 10:00:05] ... >> epoch: 0, step: 10, loss: ...": the time between the first and
// the last logged step over their step difference. Errors (ValueError):
//   "FILE: no step time: expected Hugging Face Trainer's final {'train_runtime': ..., 'train_steps_per_second': ...}
//   or two LlamaFactory step lines with timestamps"
//   "FILE: train_steps_per_second 0 gives no steps"
[[nodiscard]] Expected<StepTime> read_training_log(std::string_view text, std::string_view source);
// "cannot read training log 'FILE': No such file or directory"
[[nodiscard]] Expected<StepTime> load_training_log(const std::string& path);

// One collective NCCL Inspector measured on one rank (JSON: one record; Prometheus: one bucket, its geometric-mean
// bus bandwidth and mean execution time).
struct InspectorSample {
    std::string comm;        // comm_name, or the communicator's id when the name is absent or "unknown"
    std::string collective;  // NCCL's name: AllReduce, AllGather, ReduceScatter, ...
    std::int64_t nranks = 0, nnodes = 0;
    double bus_gbps = 0;
    double exec_us = 0;
};
struct InspectorRead {
    std::string format;  // "json" or "prometheus"
    std::vector<InspectorSample> samples;
    std::int64_t p2p = 0;  // Send/Recv records (p2p_perf, nccl_p2p_*): read, not fitted
};
// Errors (ValueError): "FILE line 3 is not valid JSON (byte 5).", "FILE line 3: missing field 'header.n_ranks'",
// "FILE line 2: label 'nranks' must be a positive integer, got \"x\"", "FILE line 4: nccl_bus_bandwidth_gbs has no
// nccl_collective_exec_time_microseconds with the same labels",
// "FILE: no NCCL Inspector collective records (JSON lines with \"coll_perf\" or nccl_bus_bandwidth_gbs lines)"
[[nodiscard]] Expected<InspectorRead> read_nccl_inspector(std::string_view text, std::string_view source);
// "cannot read NCCL Inspector output 'FILE': No such file or directory"
[[nodiscard]] Expected<InspectorRead> load_nccl_inspector(const std::string& path);

// The layout the Inspector's communicators ran on, to place them on its dims.
struct RunLayout {
    Topology topology;
    std::vector<MeshDim> dims;
};

struct BandwidthFit {
    std::vector<CommEvidence> communicators;  // one per (file, communicator, collective)
    std::optional<double> intra_gbps, inter_gbps;
    std::int64_t intra_samples = 0, inter_samples = 0;
    std::int64_t latency_bound = 0;  // samples no longer than the model's latency of their call: left out
};

// Per sample the bytes a rank moved (bus bandwidth x time, the nccl-tests definition Inspector uses) and the time
// beyond the model's latency of one call (collective_seconds with no bytes); per link the sum of bytes over the sum
// of those times: the bandwidth with which the model's collective time adds up to what was measured. AllReduce,
// AllGather and ReduceScatter are fitted (the collectives the model prices); others are evidence only.
[[nodiscard]] BandwidthFit fit_bandwidths(const std::vector<std::pair<std::string, InspectorRead>>& reads,
                                          const ClusterSpec& cluster, const std::optional<RunLayout>& layout);

struct CalibrationFit {
    double calibration = 0;
    LayoutCost preset;  // at the cluster's own calibration
    LayoutCost fitted;  // at the fitted one
};
// The calibration with which cost_layout predicts `measured_seconds` a step (bisection: the step time falls as the
// calibration rises). "dp 8, cp 1, ep 8: a step of 0.100 s is shorter than the model's 0.250 s at calibration 2:
// its communication alone takes longer (fit the bandwidths from NCCL Inspector output)" (ValueError) when none in
// (0, 2] does.
[[nodiscard]] Expected<CalibrationFit> fit_calibration(const CostInputs& in, const RunLayout& layout,
                                                       double measured_seconds);

}  // namespace meshscope::cost
