#include "meshscope/mesh/plan_export.h"

#include <ostream>
#include <sstream>

#include "meshscope/mesh/plan_json.h"

namespace meshscope {

std::string_view to_string(PlanExportFormat format) noexcept {
    switch (format) {
        case PlanExportFormat::json: return "json";
        case PlanExportFormat::yaml: return "yaml";
        case PlanExportFormat::torchrun: return "torchrun";
    }
    return "json";
}

std::optional<PlanExportFormat> parse_plan_export_format(std::string_view text) noexcept {
    for (auto format : {PlanExportFormat::json, PlanExportFormat::yaml, PlanExportFormat::torchrun})
        if (text == to_string(format)) return format;
    return std::nullopt;
}

void write_llamafactory_yaml(std::ostream& out, const Plan& plan) {
    const Topology& t = plan.topology();
    out << "# LlamaFactory v1, FSDPTurbo: world " << t.world() << " = dp " << t.dp << " x cp " << t.cp;
    if (t.has_expert_mesh())
        out << "; expert mesh edp " << t.edp << " x efsdp " << t.efsdp << " x ep " << t.ep << " x expert_cp " << t.cp
            << "\n";
    else
        out << "; ep_size 1 builds no expert mesh\n";
    out << "cp_size: " << t.cp << "\n";
    // LlamaFactory's model mesh: top-level like cp_size; left out at its default (1, world), as LlamaFactory does.
    if (t.mp_replicate != 1)
        out << "mp_replicate_size: " << t.mp_replicate << "\nmp_shard_size: " << t.mp_shard << "\n";
    out << "dist_config:\n  name: fsdpturbo\n  ep_size: " << t.ep << "\n";
}

void write_torchrun_command(std::ostream& out, const Plan& plan) {
    const Placement& p = plan.placement();
    const std::int64_t nnodes = p.nodes();
    std::int64_t nproc = p.gpus_per_node;
    if (p.world < p.gpus_per_node) {
        nproc = p.world;  // one partly used node: start only the ranks the plan has
    } else if (p.world % p.gpus_per_node != 0) {
        out << "# world size " << p.world << " does not fill " << nnodes << " nodes of " << p.gpus_per_node
            << " GPUs; torchrun starts the same number of processes on every node, so this line starts "
            << nnodes * nproc << "\n";
    }
    out << "torchrun --nnodes " << nnodes << " --nproc-per-node " << nproc;
    if (nnodes == 1)
        out << " --standalone";
    else
        out << " --rdzv-backend c10d --rdzv-endpoint <MASTER_ADDR>:29500 --rdzv-id <JOB_ID>";
    out << " <TRAIN_SCRIPT> <CONFIG.yaml>\n";
}

void write_plan_export(std::ostream& out, const Plan& plan, PlanExportFormat format) {
    switch (format) {
        case PlanExportFormat::json: write_plan_json(out, plan); return;
        case PlanExportFormat::yaml: write_llamafactory_yaml(out, plan); return;
        case PlanExportFormat::torchrun: write_torchrun_command(out, plan); return;
    }
}

std::string plan_export(const Plan& plan, PlanExportFormat format) {
    std::ostringstream out;
    write_plan_export(out, plan, format);
    return std::move(out).str();
}

}  // namespace meshscope
