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
    // The GPUs that share NVLink, which the model calls a node: an 8-GPU board, or a GB200 NVL72 rack's 72 GPUs
    // (18 hosts of 4). Groups inside one take `intra`, groups across them `inter`.
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
    std::int64_t gpus_per_node;  // GPUs per NVLink domain: 8 on a board, 72 on a GB200 NVL72 rack
    std::int64_t gpus_per_host;  // GPUs per host, what torchrun's --nproc-per-node counts: 8, or 4 on GB200
    double peak_tflops;          // dense bf16, without sparsity
    double efficiency;           // flat share of the peak, what --efficiency replaces (docs/cost-model.md, "Compute")
    double calibration;          // the scalar over the kernel curves (docs/cost-model-calibration.md, "Measured error")
};

struct NetworkPreset {
    std::string_view name;
    double gbps;
};

[[nodiscard]] const std::vector<HardwarePreset>& hardware_presets();
[[nodiscard]] const std::vector<NetworkPreset>& network_presets();

// "a100, h100, h200, b200, gb200": the hardware presets' names, for help texts and errors.
[[nodiscard]] std::string hardware_names(std::string_view separator = ", ");

// Case-insensitive names. Errors: "unknown hardware 'x100'; known: a100, h100, h200, b200, gb200",
// "unknown network 'edr'; known: ndr, hdr", "gpus_per_node must be positive, got 0.".
// gpus_per_node is the GPUs of one node as the launcher counts them; 0 takes the hardware's own. On hardware whose
// NVLink joins hosts (gb200: 18 hosts of 4 GPUs in one 72-GPU domain) a node is a host inside the domain, so the
// cluster's gpus_per_node is the preset's domain whatever is given.
[[nodiscard]] Expected<ClusterSpec> make_cluster(std::string_view hardware, std::string_view network,
                                                 std::int64_t gpus_per_node = 0);

}  // namespace meshscope::cost
