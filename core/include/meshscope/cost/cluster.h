// ClusterSpec: the GPUs and links a layout runs on, from named presets (docs/cost-model.md gives the source of
// every number).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "meshscope/mesh/error.h"

namespace meshscope::cost {

// A link as nccl-tests sees it: bus bandwidth per direction, and the latency NCCL's tuning model charges per
// ring step on it (src/graph/tuning.cc, hwLatencies, Ring/Simple).
struct Link {
    double bus_gbps = 0;  // GB/s (1e9 bytes) per direction
    double hop_latency_us = 0;
    friend bool operator==(const Link&, const Link&) = default;
};

struct ClusterSpec {
    std::string hardware;
    std::string network;
    std::int64_t gpus_per_node = 8;
    double gib_per_gpu = 80;
    double reserve = 0.10;         // the share of memory kept free (allocator fragmentation, CUDA context, NCCL)
    Link intra;                    // inside a node (NVLink)
    Link inter;                    // between nodes (one NIC per GPU)
    double base_latency_us = 8.4;  // NCCL's base latency of a Ring/Simple collective
    double peak_tflops = 989;      // dense bf16 tensor-core peak of one GPU (datasheet, without sparsity)
    double efficiency = 0.45;      // one share of that peak for all compute; used when calibration is 0
    // > 0: compute by shape (compute.h, gemm_efficiency and attention_efficiency: each GEMM and the attention core
    // at its own share of the peak from published kernel measurements) times this scalar, the residual the kernels
    // do not explain (one per GPU type, docs/cost-model-compute.md, "Calibration"). 0: the flat `efficiency`.
    double calibration = 0;

    [[nodiscard]] double memory_bytes() const noexcept { return gib_per_gpu * 1024.0 * 1024.0 * 1024.0; }
    [[nodiscard]] double usable_bytes() const noexcept { return memory_bytes() * (1.0 - reserve); }
};

struct HardwarePreset {
    std::string_view name;
    double gib_per_gpu;
    double nvlink_gbps;
    std::int64_t gpus_per_node;
    double peak_tflops;  // dense bf16, without sparsity
    double efficiency;   // flat share of the peak, what --efficiency replaces (docs/cost-model.md, "Compute")
    double calibration;  // the scalar over the kernel curves (docs/cost-model-calibration.md, "Measured error")
};

struct NetworkPreset {
    std::string_view name;
    double gbps;
};

[[nodiscard]] const std::vector<HardwarePreset>& hardware_presets();
[[nodiscard]] const std::vector<NetworkPreset>& network_presets();

// Case-insensitive names. Errors: "unknown hardware 'x100'; known: a100, h100, h200, b200",
// "unknown network 'edr'; known: ndr, hdr", "gpus_per_node must be positive, got 0.".
// gpus_per_node 0 takes the hardware's own (8 on every preset).
[[nodiscard]] Expected<ClusterSpec> make_cluster(std::string_view hardware, std::string_view network,
                                                 std::int64_t gpus_per_node = 0);

}  // namespace meshscope::cost
