"""Writes Flight Recorder dumps of a real torch.distributed gloo job of 16 ranks with LlamaFactory's three meshes,
one of whose ranks may arrive late, once, at one collective: what `meshscope diagnose` must name as a straggler.

The job builds its meshes as LlamaFactory v1 does, with torch's own init_device_mesh (the fixture package
tests/python/fixtures/llamafactory: the model mesh (mp_replicate, mp_shard) = (1, 16), the data mesh (dp, cp) =
(16, 1), then FSDPTurbo's expert mesh (edp, efsdp, ep, expert_cp) = (1, 4, 4, 1) for ep_size 4), then runs STEPS
steps of: an all_gather on its efsdp group, an all_reduce on its ep group, an all_reduce on the world. The efsdp
groups are [0, 4, 8, 12], [1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15]; the ep groups [0-3], [4-7], [8-11],
[12-15] (shared/docs/domain.md's row-major rule). At the end every rank writes its Flight Recorder as torch does
(pickle, TORCH_FR_DUMP_TEMP_FILE + rank) into OUT_DIR/SCENARIO/dumps/, and the scenario's facts beside them.

Scenarios:
  healthy   nothing injected.
  late      rank 6 sleeps 2 s before the efsdp all_gather of step 2 (its efsdp group [2, 6, 10, 14]); nothing else.

Usage: make_straggler_job.py OUT_DIR [SCENARIO...]   (default: both). Writes OUT_DIR/SCENARIO/dumps/ and
OUT_DIR/SCENARIO/facts.json.
"""
import datetime
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WORLD = 16
EP = 4
STEPS = 4
SCENARIOS = {
    "healthy": {},
    "late": {"rank": 6, "dim": "efsdp", "step": 2, "collective": "all_gather", "sleep_s": 2.0,
             "group": [2, 6, 10, 14]},
}


def rank_main(rank, scenario, out_dir, port):
    sys.path.insert(0, os.path.join(HERE, "..", "python", "fixtures"))
    import torch
    import torch.distributed as dist
    import torch._C._distributed_c10d as c10d
    from llamafactory.v1.accelerator.interface import DistributedInterface
    from llamafactory.v1.plugins.trainer_plugins.distributed import fsdpturbo

    fault = SCENARIOS[scenario]
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=WORLD, timeout=datetime.timedelta(seconds=120))
    interface = DistributedInterface(cp_size=1)  # the model mesh, then the data mesh
    state = fsdpturbo.get_fsdpturbo_parallel_state()
    state.initialize(interface, {"ep_size": EP})  # the expert mesh
    efsdp = state.efsdp_mesh.get_group()
    ep = state.ep_mesh.get_group()
    world = torch.ones(2)
    for step in range(1, STEPS + 1):
        if fault and rank == fault["rank"] and step == fault["step"]:
            time.sleep(fault["sleep_s"])
        shard = torch.full((4,), float(rank))
        gathered = [torch.zeros(4) for _ in range(dist.get_world_size(efsdp))]
        dist.all_gather(gathered, shard, group=efsdp)
        tokens = torch.ones(3)
        dist.all_reduce(tokens, group=ep)
        dist.all_reduce(world)
    c10d._dump_fr_trace_file(rank, includeStackTraces=False)
    sys.stdout.flush()
    os._exit(0)  # the dump is what matters; gloo's teardown of 16 ranks adds nothing


def run(scenario, out_dir, port):
    import torch.multiprocessing as mp

    os.makedirs(os.path.join(out_dir, "dumps"), exist_ok=True)
    os.environ["TORCH_FR_BUFFER_SIZE"] = "2000"
    os.environ["TORCH_FR_DUMP_TEMP_FILE"] = os.path.join(out_dir, "dumps", "nccl_trace_rank_")
    mp.start_processes(rank_main, args=(scenario, out_dir, port), nprocs=WORLD, start_method="fork", join=True)
    facts = {"scenario": scenario, "world": WORLD, "dp": WORLD, "cp": 1, "ep": EP, "steps": STEPS,
             "fault": SCENARIOS[scenario]}
    with open(os.path.join(out_dir, "facts.json"), "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True)
        f.write("\n")


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    names = argv[2:] or list(SCENARIOS)
    for i, name in enumerate(names):
        if name not in SCENARIOS:
            print(f"unknown scenario {name!r}; known: {', '.join(SCENARIOS)}", file=sys.stderr)
            return 2
        run(name, os.path.join(argv[1], name), 30600 + (os.getpid() % 200) * 10 + i)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
