#include "plan_exports.h"

#include <sstream>

#include "meshscope/plan_json.h"

namespace meshscope::ui {

QString plan_json(const Plan& plan) {
    std::ostringstream out;
    write_plan_json(out, plan);
    return QString::fromStdString(out.str());
}

QString llamafactory_yaml(const Plan& plan) {
    const Topology& t = plan.topology();
    QString out =
        QStringLiteral("# LlamaFactory v1, FSDPTurbo: world %1 = dp %2 x cp %3").arg(t.world()).arg(t.dp).arg(t.cp);
    if (t.has_expert_mesh())
        out += QStringLiteral("; expert mesh edp %1 x efsdp %2 x ep %3 x expert_cp %4\n")
                   .arg(t.edp)
                   .arg(t.efsdp)
                   .arg(t.ep)
                   .arg(t.cp);
    else
        out += QStringLiteral("; ep_size 1 builds no expert mesh\n");
    out += QStringLiteral("cp_size: %1\ndist_config:\n  name: fsdpturbo\n  ep_size: %2\n").arg(t.cp).arg(t.ep);
    return out;
}

QString torchrun_command(const Plan& plan) {
    const Placement& p = plan.placement();
    QString out;
    std::int64_t nnodes = p.nodes();
    std::int64_t nproc = p.gpus_per_node;
    if (p.world < p.gpus_per_node) {
        nproc = p.world;  // one partly used node: start only the ranks the plan has
    } else if (p.world % p.gpus_per_node != 0) {
        out += QStringLiteral(
                   "# world size %1 does not fill %2 nodes of %3 GPUs; torchrun starts the same number "
                   "of processes on every node, so this line starts %4\n")
                   .arg(p.world)
                   .arg(nnodes)
                   .arg(p.gpus_per_node)
                   .arg(nnodes * nproc);
    }
    out += QStringLiteral("torchrun --nnodes %1 --nproc-per-node %2").arg(nnodes).arg(nproc);
    if (nnodes == 1)
        out += QStringLiteral(" --standalone");
    else
        out += QStringLiteral(" --rdzv-backend c10d --rdzv-endpoint <MASTER_ADDR>:29500 --rdzv-id <JOB_ID>");
    out += QStringLiteral(" <TRAIN_SCRIPT> <CONFIG.yaml>\n");
    return out;
}

}  // namespace meshscope::ui
