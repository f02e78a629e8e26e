// The right answer to every step of every shipped tour (null: a reading step), worked by hand from the tours'
// texts and ../shared/docs/domain.md, and one wrong answer per tour with core's exact message
// (docs/tours.md, tests/tours/tst_tour_check.cpp). See answer() in tst_tours.qml for the shapes.
.pragma library

// mesh-basics: the data mesh (dp, cp) = (8, 2), rank = dp * 2 + cp, nodes of 8; step 6 is (4, 4) on nodes of 6.
// expert-mesh: (edp, efsdp, ep, expert_cp) = (1, 4, 2, 2), rank = efsdp * 4 + ep * 2 + expert_cp; rank 13 at
// (0, 3, 0, 1); ep = 8 gives (1, 1, 8, 2), two ep groups that both leave a node; 16 ranks with ep groups inside
// 8-GPU nodes need cp = 1. creation-order: efsdp groups torch29 [0,4,8,12], [1,5,9,13], [2,6,10,14], ...;
// torch28 [0,4,8,12], [2,6,10,14], [1,5,9,13], ... peers: FSDPTurbo's ep groups [0,2], [1,3], [4,6], [5,7], ...,
// TorchTitan's and Megatron-Core's [0,1], [2,3], [4,5], ...; with ep = 8, FSDPTurbo's [1, 3, ..., 15].
const walks = [
    {tag: "mesh-basics", tour: "mesh-basics",
     answers: [null, {rank: 4}, {rank: 7}, {number: 8}, {number: 2}, {rank: 6}, {choice: 1}]},
    {tag: "expert-mesh", tour: "expert-mesh",
     answers: [null, {choice: 1}, {rank: 7}, {rank: 9}, {number: 4}, {number: 2},
               {layout: {world: 16, cp: 1, ep: 8, gpusPerNode: 8}}, null]},
    {tag: "creation-order", tour: "creation-order",
     answers: [null, {number: 1}, {number: 2}, {choice: 1}, {number: 1}, {liveFinding: "creation_order_mismatch"}, null]},
    {tag: "singleton-pitfall", tour: "singleton-pitfall",
     answers: [null, {calls: [[16, 1, 2]]}, {calls: [[16, 1, 4]]}, {calls: [[16, 1, 3]]},
               {calls: [[16, 1, 2], [16, 1, 4], "relaunch", [16, 1, 4]]},
               {calls: [[16, 1, 2], [16, 1, 4], "reset", [16, 1, 4]]},
               {calls: [[16, 1, 2], [16, 1, 2]]}]},
    {tag: "live-job", tour: "live-job",
     answers: [null, {liveFinding: "missing_rank"}, {liveFinding: "topology_mismatch"},
               {liveFinding: "group_disagreement"}, {liveFinding: "duplicate_rank"}, {liveFinding: "straggler"},
               {liveFinding: "stale_rank"}, {liveFinding: "rank_error"}, {liveFinding: "reinit_mismatch"}]},
    {tag: "peers", tour: "peers",
     answers: [null, {peerRank: 7}, {peerRank: 4}, {peerRank: 4}, {peerRank: 9}, {choice: 1}]},
];

// `RANK` in a message stands for the rank the answer clicked (a live job's ranks come from the simulator).
const wrongs = [
    {tag: "mesh-basics", tour: "mesh-basics", step: 2, answer: {rank: 6},
     message: "rank 6's cp group is [6, 7]; it does not contain rank 5."},
    {tag: "expert-mesh", tour: "expert-mesh", step: 3, answer: {rank: 3},
     message: "rank 3's ep group is [1, 3]; it does not contain rank 5."},
    {tag: "creation-order", tour: "creation-order", step: 2, answer: {number: 2},
     message: "in torch29 order position 2 creates [2, 6, 10, 14], not rank 5's efsdp group [1, 5, 9, 13]."},
    {tag: "singleton-pitfall", tour: "singleton-pitfall", step: 3, answer: {calls: [[16, 1, 2]]},
     message: "the last call's outcome is initialized, not RuntimeError."},
    {tag: "live-job", tour: "live-job", step: 2, answer: {liveFinding: "straggler", waitFor: "missing_rank"},
     message: "rank RANK is not one of the ranks of the missing_rank finding."},
    {tag: "peers", tour: "peers", step: 2, answer: {peerRank: 4},
     message: "in FSDPTurbo's layout rank 4's ep group is [4, 6]; it does not contain rank 5."},
];
