"""Writes Flight Recorder dumps of real torch.distributed gloo jobs with injected faults.

One job of 8 ranks per scenario, laid out as MeshScope's plan for dp 8, cp 1, ep 4: the expert mesh
(edp, efsdp, ep, expert_cp) = (1, 2, 4, 1), whose efsdp groups are [0, 4], [1, 5], [2, 6], [3, 7] and whose ep
groups are [0, 1, 2, 3], [4, 5, 6, 7]. Every rank creates the groups in that order with new_group and
group_desc "mesh_efsdp" / "mesh_ep" (what DeviceMesh names them), runs a few steps (an all_gather on its efsdp
group, an all_reduce on its ep group, an all_reduce on the world) and, when a collective times out, writes its
Flight Recorder as torch does: pickle to TORCH_FR_DUMP_TEMP_FILE + rank, and the JSON form beside it.

Scenarios (each fact below is what the test expects the reader to find):
  healthy   nothing injected; every collective completes.
  skip      rank 6 skips the ep all_reduce of step 2 (ep group 1 = [4, 5, 6, 7]).
  sizes     rank 5's efsdp all_gather of step 1 gathers tensors of shape [2, 2] where its peer gathers [4]
            (the same bytes, so gloo completes it; Flight Recorder records the sizes) (efsdp group 1 = [1, 5]).
  nogroup   rank 3 never creates its ep group [0, 1, 2, 3].

Usage: make_fr_fixtures.py OUT_DIR [SCENARIO...]   (default: every scenario). Writes OUT_DIR/SCENARIO/.
"""
import datetime
import json
import os
import sys

WORLD = 8
STEPS = 3
TIMEOUT_S = 6
EFSDP_GROUPS = [[0, 4], [1, 5], [2, 6], [3, 7]]
EP_GROUPS = [[0, 1, 2, 3], [4, 5, 6, 7]]
SCENARIOS = {
    "healthy": {},
    "skip": {"rank": 6, "dim": "ep", "group": 1, "step": 2, "what": "skips the ep all_reduce"},
    "sizes": {"rank": 5, "dim": "efsdp", "group": 1, "step": 1, "what": "all_gather of shape [2, 2] instead of [4]"},
    "nogroup": {"rank": 3, "dim": "ep", "group": 0, "what": "never creates its ep group"},
}


def rank_main(rank, scenario, out_dir, port):
    import torch
    import torch.distributed as dist
    import torch._C._distributed_c10d as c10d

    fault = SCENARIOS[scenario]
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    timeout = datetime.timedelta(seconds=TIMEOUT_S)
    dist.init_process_group("gloo", rank=rank, world_size=WORLD, timeout=timeout)

    def dump():
        c10d._dump_fr_trace_file(rank, includeStackTraces=False)
        with open(os.path.join(out_dir, "json", f"nccl_trace_rank_{rank}.json"), "wb") as f:
            f.write(c10d._dump_fr_trace_json())
        sys.stdout.flush()
        os._exit(0)  # a timed-out gloo group cannot be torn down cleanly; the dump is what matters

    try:
        world = torch.ones(2)
        dist.all_reduce(world)  # every rank's first entry: seq 1 of the default group
        efsdp = ep = None
        for members in EFSDP_GROUPS:
            g = dist.new_group(members, timeout=timeout, group_desc="mesh_efsdp")
            if rank in members:
                efsdp = g
        for index, members in enumerate(EP_GROUPS):
            if fault.get("what") == "never creates its ep group" and rank == fault["rank"] and index == fault["group"]:
                continue
            g = dist.new_group(members, timeout=timeout, group_desc="mesh_ep")
            if rank in members:
                ep = g
        for step in range(1, STEPS + 1):
            shape = (4,)
            if scenario == "sizes" and rank == fault["rank"] and step == fault["step"]:
                shape = (2, 2)  # as many bytes (gloo moves them without complaint), another shape
            shard = torch.full(shape, float(rank))
            gathered = [torch.zeros(shape) for _ in range(2)]
            dist.all_gather(gathered, shard, group=efsdp)
            if ep is not None and not (scenario == "skip" and rank == fault["rank"] and step == fault["step"]):
                tokens = torch.ones(3)
                dist.all_reduce(tokens, group=ep)
            dist.all_reduce(world)
        dist.barrier()
    except Exception as error:  # a timeout or a rejected collective: the job would now hang or die
        print(f"rank {rank}: {type(error).__name__}: {str(error).splitlines()[0]}", file=sys.stderr)
    dump()


def run(scenario, out_dir, port):
    import torch.multiprocessing as mp

    os.makedirs(os.path.join(out_dir, "json"), exist_ok=True)
    os.environ["TORCH_FR_BUFFER_SIZE"] = "2000"
    os.environ["TORCH_FR_DUMP_TEMP_FILE"] = os.path.join(out_dir, "nccl_trace_rank_")
    mp.start_processes(rank_main, args=(scenario, out_dir, port), nprocs=WORLD, start_method="fork", join=True)
    facts = {"scenario": scenario, "world": WORLD, "dp": 8, "cp": 1, "ep": 4, "fault": SCENARIOS[scenario],
             "efsdp_groups": EFSDP_GROUPS, "ep_groups": EP_GROUPS, "steps": STEPS}
    with open(os.path.join(out_dir, "facts.json"), "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True)
        f.write("\n")


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = argv[1]
    names = argv[2:] or list(SCENARIOS)
    for i, name in enumerate(names):
        if name not in SCENARIOS:
            print(f"unknown scenario {name!r}; known: {', '.join(SCENARIOS)}", file=sys.stderr)
            return 2
        run(name, os.path.join(out, name), 29600 + (os.getpid() % 200) * 10 + i)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
