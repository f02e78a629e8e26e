"""A small real torch.distributed job (gloo, CPU, one process per rank) that serves torch's debug server and hangs.

4 ranks build LlamaFactory's meshes for dp 4, cp 1, ep 2 with init_device_mesh, in LlamaFactory's order: the model
mesh (mp_replicate, mp_shard) = (1, 4), the data mesh (dp, cp) = (4, 1), FSDPTurbo's expert mesh (edp, efsdp, ep,
expert_cp) = (1, 2, 2, 1), whose efsdp groups are [0, 2], [1, 3] and ep groups [0, 1], [2, 3]
(docs: domain.md, section 2). Every rank then calls torch.distributed.debug.start_debug_server(port=PORT) (the
front end on rank 0, its process spawned) and runs 3 steps: an all_gather on its efsdp group, an all_reduce on its ep group, an
all_reduce on the world. The fault: rank 3 skips the ep all_reduce of step 2, so rank 2 waits in it for rank 3 while
rank 3 waits in the world's all_reduce of step 2 (default_pg seq 3), and ranks 0 and 1 with it: the job hangs
there, its debug server still answering (the worker servers are C++ threads). Each rank prints "rank R at step S"
before each step and "rank R waits" once its Flight Recorder holds all it will before the hang.

Usage: torch_debug_job.py MASTER_PORT DEBUG_PORT
"""
import os
import sys

WORLD = 4
STEPS = 3
FAULT_RANK, FAULT_STEP = 3, 2


def rank_main(rank, master_port, debug_port):
    import torch
    import torch.distributed as dist
    from torch.distributed.debug import start_debug_server
    from torch.distributed.device_mesh import init_device_mesh

    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(master_port), RANK=str(rank),
                      WORLD_SIZE=str(WORLD))
    dist.init_process_group("gloo", rank=rank, world_size=WORLD)
    # The front end's process spawned, not forked: a fork of rank 0 (gloo's and the worker server's threads
    # running) can inherit a lock held by another thread and hang before it listens.
    start_debug_server(port=debug_port, start_method="spawn")
    init_device_mesh("cpu", (1, WORLD), mesh_dim_names=("mp_replicate", "mp_shard"))
    init_device_mesh("cpu", (WORLD, 1), mesh_dim_names=("dp", "cp"))
    expert = init_device_mesh("cpu", (1, 2, 2, 1), mesh_dim_names=("edp", "efsdp", "ep", "expert_cp"))
    world = torch.ones(2)
    dist.all_reduce(world)
    for step in range(1, STEPS + 1):
        print("rank %d at step %d" % (rank, step), flush=True)
        gathered = [torch.zeros(4) for _ in range(2)]
        dist.all_gather(gathered, torch.full((4,), float(rank)), group=expert["efsdp"].get_group())
        if not (rank == FAULT_RANK and step == FAULT_STEP):
            if rank == 2 and step == FAULT_STEP:
                print("rank %d waits" % rank, flush=True)
            dist.all_reduce(torch.ones(3), group=expert["ep"].get_group())
        if rank != 2 and step == FAULT_STEP:
            print("rank %d waits" % rank, flush=True)
        dist.all_reduce(world)
    print("rank %d finished: the fault did not hang the job" % rank, flush=True)


def main(argv):
    import torch.multiprocessing as mp

    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    os.environ["TORCH_FR_BUFFER_SIZE"] = "2000"
    mp.start_processes(rank_main, args=(int(argv[1]), int(argv[2])), nprocs=WORLD, start_method="fork")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
