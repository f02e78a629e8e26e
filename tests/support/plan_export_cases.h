// Hand-worked exports of a few plans (docs/plan-format.md, docs/planner.md, domain.md), shared by the tests
// of every place that writes them: core (tst_plan_export), the CLI (tst_plan_cli), the collector
// (tst_plan_api) and the desktop planner (tst_plan_controller). One expected text, four writers compared to it.
#pragma once

#include <array>
#include <string_view>

namespace plan_export_cases {

struct Case {
    const char* name;
    int world, cp, ep, gpus_per_node;
    std::string_view yaml;
    std::string_view torchrun;
};

inline constexpr std::array<Case, 4> text_cases{{
    {"dp 8 cp 2 ep 2 on two nodes", 16, 2, 2, 8,
     "# LlamaFactory v1, FSDPTurbo: world 16 = dp 8 x cp 2; expert mesh edp 1 x efsdp 4 x ep 2 x expert_cp 2\n"
     "cp_size: 2\ndist_config:\n  name: fsdpturbo\n  ep_size: 2\n",
     "torchrun --nnodes 2 --nproc-per-node 8 --rdzv-backend c10d --rdzv-endpoint <MASTER_ADDR>:29500 "
     "--rdzv-id <JOB_ID> <TRAIN_SCRIPT> <CONFIG.yaml>\n"},
    {"one full node, ep 1", 8, 1, 1, 8,
     "# LlamaFactory v1, FSDPTurbo: world 8 = dp 8 x cp 1; ep_size 1 builds no expert mesh\n"
     "cp_size: 1\ndist_config:\n  name: fsdpturbo\n  ep_size: 1\n",
     "torchrun --nnodes 1 --nproc-per-node 8 --standalone <TRAIN_SCRIPT> <CONFIG.yaml>\n"},
    {"three ranks on a node of four", 3, 1, 3, 4,
     "# LlamaFactory v1, FSDPTurbo: world 3 = dp 3 x cp 1; expert mesh edp 1 x efsdp 1 x ep 3 x expert_cp 1\n"
     "cp_size: 1\ndist_config:\n  name: fsdpturbo\n  ep_size: 3\n",
     "torchrun --nnodes 1 --nproc-per-node 3 --standalone <TRAIN_SCRIPT> <CONFIG.yaml>\n"},
    {"20 ranks on nodes of 8", 20, 2, 5, 8,
     "# LlamaFactory v1, FSDPTurbo: world 20 = dp 10 x cp 2; expert mesh edp 1 x efsdp 2 x ep 5 x expert_cp 2\n"
     "cp_size: 2\ndist_config:\n  name: fsdpturbo\n  ep_size: 5\n",
     "# world size 20 does not fill 3 nodes of 8 GPUs; torchrun starts the same number of processes on every node, "
     "so this line starts 24\n"
     "torchrun --nnodes 3 --nproc-per-node 8 --rdzv-backend c10d --rdzv-endpoint <MASTER_ADDR>:29500 "
     "--rdzv-id <JOB_ID> <TRAIN_SCRIPT> <CONFIG.yaml>\n"},
}};

// dp 4, ep 2 on nodes of 2 GPUs (world 4, cp 1): LlamaFactory's default model mesh (1, 4), whose one mp_shard
// group [0..3] spans both nodes; expert mesh (1, 2, 2, 1); efsdp [0,2] [1,3] cross the two nodes, ep [0,1]
// [2,3] stay inside them; no warning.
inline constexpr int json_world = 4, json_cp = 1, json_ep = 2, json_gpus_per_node = 2;
inline constexpr std::string_view json =
    "{\n"
    "  \"schema\": \"meshscope.plan/1\",\n"
    "  \"topology\": {\"world\": 4, \"dp\": 4, \"cp\": 1, \"ep\": 2, \"efsdp\": 2, \"edp\": 1, \"mp_replicate\": 1, "
    "\"mp_shard\": 4},\n"
    "  \"cluster\": {\"gpus_per_node\": 2, \"nodes\": 2},\n"
    "  \"creation_order\": \"torch29\",\n"
    "  \"meshes\": [\n"
    "    {\"name\": \"model\", \"dim_names\": [\"mp_replicate\",\"mp_shard\"], \"shape\": [1,4],\n"
    "     \"spans\": {\"mp_replicate\": {\"group_size\": 1, \"groups\": 4, \"cross_node_groups\": 0, \"max_nodes\": "
    "1}, "
    "\"mp_shard\": {\"group_size\": 4, \"groups\": 1, \"cross_node_groups\": 1, \"max_nodes\": 2}},\n"
    "     \"groups\": {\"mp_replicate\": [[0], [1], [2], [3]],\n"
    "                \"mp_shard\": [[0, 1, 2, 3]]}},\n"
    "    {\"name\": \"data\", \"dim_names\": [\"dp\",\"cp\"], \"shape\": [4,1],\n"
    "     \"spans\": {\"dp\": {\"group_size\": 4, \"groups\": 1, \"cross_node_groups\": 1, \"max_nodes\": 2}, "
    "\"cp\": {\"group_size\": 1, \"groups\": 4, \"cross_node_groups\": 0, \"max_nodes\": 1}},\n"
    "     \"groups\": {\"dp\": [[0, 1, 2, 3]],\n"
    "                \"cp\": [[0], [1], [2], [3]]}},\n"
    "    {\"name\": \"expert\", \"dim_names\": [\"edp\",\"efsdp\",\"ep\",\"expert_cp\"], \"shape\": [1,2,2,1],\n"
    "     \"spans\": {\"edp\": {\"group_size\": 1, \"groups\": 4, \"cross_node_groups\": 0, \"max_nodes\": 1}, "
    "\"efsdp\": {\"group_size\": 2, \"groups\": 2, \"cross_node_groups\": 2, \"max_nodes\": 2}, "
    "\"ep\": {\"group_size\": 2, \"groups\": 2, \"cross_node_groups\": 0, \"max_nodes\": 1}, "
    "\"expert_cp\": {\"group_size\": 1, \"groups\": 4, \"cross_node_groups\": 0, \"max_nodes\": 1}},\n"
    "     \"groups\": {\"edp\": [[0], [1], [2], [3]],\n"
    "                \"efsdp\": [[0, 2], [1, 3]],\n"
    "                \"ep\": [[0, 1], [2, 3]],\n"
    "                \"expert_cp\": [[0], [1], [2], [3]]}}\n"
    "  ],\n"
    "  \"ranks\": [\n"
    "    {\"rank\": 0, \"node\": 0, \"local_rank\": 0, \"coords\": {\"model\": [0, 0], \"data\": [0, 0], \"expert\": "
    "[0, 0, 0, 0]}},\n"
    "    {\"rank\": 1, \"node\": 0, \"local_rank\": 1, \"coords\": {\"model\": [0, 1], \"data\": [1, 0], \"expert\": "
    "[0, 0, 1, 0]}},\n"
    "    {\"rank\": 2, \"node\": 1, \"local_rank\": 0, \"coords\": {\"model\": [0, 2], \"data\": [2, 0], \"expert\": "
    "[0, 1, 0, 0]}},\n"
    "    {\"rank\": 3, \"node\": 1, \"local_rank\": 1, \"coords\": {\"model\": [0, 3], \"data\": [3, 0], \"expert\": "
    "[0, 1, 1, 0]}}\n"
    "  ],\n"
    "  \"warnings\": []\n"
    "}\n";

}  // namespace plan_export_cases
