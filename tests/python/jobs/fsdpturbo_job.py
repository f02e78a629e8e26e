"""An 8-rank (or any world) torch.distributed job that builds LlamaFactory FSDPTurbo's meshes, as a user's
training script would, with no MeshScope code in it: the reporter attaches only through PYTHONPATH and
MESHSCOPE_URL. Gloo backend, CPU, loopback; no tensors beyond one barrier.

    python fsdpturbo_job.py --cp 1 --ep 2 [--odd-rank R --odd-ep E] [--reinit-ep E] [--result-dir D]
                            [--hold-file F]

Each rank writes <result-dir>/rank<R>.json: what it saw (e.g. the re-initialization RuntimeError: type,
message, and the file of the frame that raised it, to prove it reached the caller unchanged).
"""

import argparse
import datetime
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures"))

import torch.distributed as dist  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cp", type=int, default=1)
    parser.add_argument("--ep", type=int, default=2)
    parser.add_argument("--odd-rank", type=int, default=-1)
    parser.add_argument("--odd-ep", type=int, default=0)
    parser.add_argument("--reinit-ep", type=int, default=0)
    parser.add_argument("--result-dir", default="")
    parser.add_argument("--hold-file", default="", help="after init, wait (<= 60 s) until this file exists")
    parser.add_argument("--timeout", type=float, default=60.0, help="process-group timeout, seconds")
    args = parser.parse_args()

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=args.timeout))
    rank = dist.get_rank()

    from llamafactory.v1.accelerator.interface import DistributedInterface
    from llamafactory.v1.plugins.trainer_plugins.distributed.fsdpturbo import get_fsdpturbo_parallel_state

    interface = DistributedInterface(cp_size=args.cp)
    state = get_fsdpturbo_parallel_state()
    ep = args.odd_ep if rank == args.odd_rank else args.ep
    state.initialize(interface, {"ep_size": ep})
    result = {"rank": rank, "topology": [state.dp_size, state.cp_size, state.ep_size]}
    if state.ep_mesh is not None:
        result["ep_group"] = state.ep_mesh.members
    if args.reinit_ep:
        try:
            state.initialize(interface, {"ep_size": args.reinit_ep})
        except RuntimeError as exc:
            tb = exc.__traceback__
            while tb.tb_next is not None:
                tb = tb.tb_next
            result["error"] = {"type": type(exc).__name__, "message": str(exc),
                               "raised_in": os.path.basename(tb.tb_frame.f_code.co_filename)}
    dist.barrier()  # the first collective: initialization is over
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
