#include "meshscope/cost/cluster.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace meshscope::cost {

namespace {
std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

// NCCL's hwLatencies for Ring/Simple (src/graph/tuning.cc): 3.4 us per step over NVLink, 14 us over the network.
constexpr double nvlink_hop_us = 3.4;
constexpr double network_hop_us = 14.0;
// One flat share of the dense bf16 peak for all compute: what --efficiency replaces, and what the model used before
// compute by shape (docs/cost-model.md, "Compute").
constexpr double default_efficiency = 0.45;
// The scalar over the kernel curves (compute.h), fitted on the H100 rows of one source, NeMo AutoModel, to the nearest
// 0.05 (docs/cost-model-calibration.md, "Measured error"); the other GPU types have no fitted row and take it (their
// published rows are held out, never fitted).
constexpr double hopper_calibration = 0.60;
}  // namespace

const std::vector<HardwarePreset>& hardware_presets() {
    // Memory: NVIDIA's datasheets (A100 SXM 80GB, H100 SXM 80GB, H200 141GB, B200 180GB as in DGX B200's 1,440GB
    // over 8 GPUs, GB200 186GB as in GB200 NVL72's 13.4TB over 72 GPUs). NVLink per direction: half the datasheet's
    // bidirectional figure (600, 900, 900, 1800, 1800 GB/s). Dense bf16 peaks (the datasheets give them with
    // sparsity, twice these): A100 312 TFLOPS, H100 and H200 SXM 989 TFLOPS (1,979 with sparsity), B200 2,250 TFLOPS
    // (HGX B200: 36 PFLOPS with sparsity over 8 GPUs), GB200 2,500 TFLOPS (5,000 with sparsity, the GPU at 1,200 W
    // where HGX B200's runs at 1,000 W). GB200 NVL72 joins 18 hosts of 4 GPUs in one
    // 72-GPU NVLink domain (docs/cost-model.md, "Presets", has the sources and where they disagree).
    // Efficiency: the share of the peak measured MoE training steps reach
    // (docs/cost-model-calibration.md, "Measured error": calibrated once per GPU type on H100 rows; H200 has the
    // same tensor cores; A100, B200 and GB200 have no fitted row and take H100's).
    static const std::vector<HardwarePreset> presets{
        {"a100", 80, 300, 8, 8, 312, default_efficiency, hopper_calibration},
        {"h100", 80, 450, 8, 8, 989, default_efficiency, hopper_calibration},
        {"h200", 141, 450, 8, 8, 989, default_efficiency, hopper_calibration},
        {"b200", 180, 900, 8, 8, 2250, default_efficiency, hopper_calibration},
        {"gb200", 186, 900, 72, 4, 2500, default_efficiency, hopper_calibration},
    };
    return presets;
}

std::string hardware_names(std::string_view separator) {
    std::string names;
    for (const auto& p : hardware_presets())
        names += (names.empty() ? "" : std::string(separator)) + std::string(p.name);
    return names;
}

const std::vector<NetworkPreset>& network_presets() {
    // InfiniBand NDR 400 Gb/s and HDR 200 Gb/s, one NIC per GPU: 50 and 25 GB/s per direction.
    static const std::vector<NetworkPreset> presets{{"ndr", 50}, {"hdr", 25}};
    return presets;
}

Expected<ClusterSpec> make_cluster(std::string_view hardware, std::string_view network, std::int64_t gpus_per_node) {
    const std::string hw = lower(hardware), net = lower(network);
    const auto h = std::find_if(hardware_presets().begin(), hardware_presets().end(),
                                [&](const HardwarePreset& p) { return p.name == hw; });
    if (h == hardware_presets().end()) {
        return ValueError("unknown hardware '" + std::string(hardware) + "'; known: " + hardware_names(),
                          Input::hardware, Rule::known);
    }
    const auto n = std::find_if(network_presets().begin(), network_presets().end(),
                                [&](const NetworkPreset& p) { return p.name == net; });
    if (n == network_presets().end()) {
        std::string known;
        for (const auto& p : network_presets()) known += (known.empty() ? "" : ", ") + std::string(p.name);
        return ValueError("unknown network '" + std::string(network) + "'; known: " + known, Input::network,
                          Rule::known);
    }
    if (gpus_per_node < 0)
        return ValueError("gpus_per_node must be positive, got " + std::to_string(gpus_per_node) + ".",
                          Input::gpus_per_node, Rule::positive);
    ClusterSpec spec;
    spec.hardware = std::string(h->name);
    spec.network = std::string(n->name);
    // A node given on hardware whose NVLink joins hosts is a host inside the domain: the domain stays the preset's.
    const bool nvlink_joins_hosts = h->gpus_per_node > h->gpus_per_host;
    spec.gpus_per_node = gpus_per_node == 0 || nvlink_joins_hosts ? h->gpus_per_node : gpus_per_node;
    spec.gib_per_gpu = h->gib_per_gpu;
    spec.peak_tflops = h->peak_tflops;
    spec.efficiency = h->efficiency;
    spec.calibration = h->calibration;
    spec.intra = Link{h->nvlink_gbps, nvlink_hop_us};
    spec.inter = Link{n->gbps, network_hop_us};
    return spec;
}

}  // namespace meshscope::cost
