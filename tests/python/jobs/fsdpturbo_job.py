"""An 8-rank (or any world) torch.distributed job that builds LlamaFactory FSDPTurbo's meshes, as a user's
training script would, with no MeshScope code in it: the reporter attaches only through PYTHONPATH and
MESHSCOPE_URL. Gloo backend, CPU, loopback. With --moe-step it then trains one step of a small MoE layer whose
experts are split over the ep group (all_to_all_single) under FSDP2's fully_shard (jobs/moe.py); otherwise its
first collective is a barrier.

    python fsdpturbo_job.py --cp 1 --ep 2 [--odd-rank R (--odd-ep E | --odd-order torch28)] [--reinit-ep E]
                            [--moe-step] [--result-dir D] [--hold-file F]

--odd-order torch28: rank R builds FSDPTurbo's expert mesh with new_group in PyTorch 2.8's creation order
(fixtures/fixture_device_mesh.py), as a rank on another torch version would; the others use torch's own.
Each rank writes <result-dir>/rank<R>.json: what it saw (e.g. the re-initialization RuntimeError: type,
message, and the file of the frame that raised it, to prove it reached the caller unchanged).
"""

import argparse
import datetime
import functools
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fixtures"))
sys.path.insert(0, HERE)

import torch.distributed as dist  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cp", type=int, default=1)
    parser.add_argument("--ep", type=int, default=2)
    parser.add_argument("--odd-rank", type=int, default=-1)
    parser.add_argument("--odd-ep", type=int, default=0)
    parser.add_argument("--odd-order", default="", choices=["", "torch28"])
    parser.add_argument("--moe-step", action="store_true")
    parser.add_argument("--reinit-ep", type=int, default=0)
    parser.add_argument("--result-dir", default="")
    parser.add_argument("--hold-file", default="", help="after init, wait (<= 60 s) until this file exists")
    parser.add_argument("--timeout", type=float, default=60.0, help="process-group timeout, seconds")
    args = parser.parse_args()

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=args.timeout))
    rank = dist.get_rank()

    from llamafactory.v1.accelerator.interface import DistributedInterface
    from llamafactory.v1.plugins.trainer_plugins.distributed import fsdpturbo

    if rank == args.odd_rank and args.odd_order:
        from fixture_device_mesh import init_device_mesh

        fsdpturbo.init_device_mesh = functools.partial(init_device_mesh, order=args.odd_order)

    interface = DistributedInterface(cp_size=args.cp)
    state = fsdpturbo.get_fsdpturbo_parallel_state()
    ep = args.odd_ep if rank == args.odd_rank and args.odd_ep else args.ep
    state.initialize(interface, {"ep_size": ep})
    result = {"rank": rank, "topology": [state.dp_size, state.cp_size, state.ep_size]}
    if state.ep_mesh is not None:
        result["ep_group"] = dist.get_process_group_ranks(state.ep_mesh.get_group())
    if args.reinit_ep:
        try:
            state.initialize(interface, {"ep_size": args.reinit_ep})
        except RuntimeError as exc:
            tb = exc.__traceback__
            while tb.tb_next is not None:
                tb = tb.tb_next
            result["error"] = {"type": type(exc).__name__, "message": str(exc),
                               "raised_in": os.path.basename(tb.tb_frame.f_code.co_filename)}
    if args.moe_step:  # the first collectives: initialization is over
        from moe import train_one_step

        result["step"] = train_one_step(interface.get_device_mesh(), state.expert_mesh, state.ep_mesh.get_group(),
                                        state.efsdp_mesh, seed=100 + rank)
    dist.barrier()  # the first collective without --moe-step
    if args.result_dir:
        with open(os.path.join(args.result_dir, f"rank{rank}.json"), "w", encoding="utf-8") as handle:
            json.dump(result, handle)
    if args.hold_file:
        deadline = time.monotonic() + 60
        while not os.path.exists(args.hold_file) and time.monotonic() < deadline:
            time.sleep(0.05)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
