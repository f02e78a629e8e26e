"""A real NCCL job that hangs on purpose, for scripts/gpu-check.sh: what NCCL and PyTorch record of a hang.

Run under torchrun with one rank per GPU, two or more (NCCL refuses two ranks on one device). Every rank
all-reduces on the world group three times, except the last rank, which skips step 2's: it ends one collective
early, and the others wait in their third until the watchdog's timeout. What the hang leaves behind is
what gpu-check.sh then reads with `meshscope diagnose` and puts into a collector with `meshscope import`:
NCCL_DEBUG=INFO logs (NCCL_DEBUG_FILE), Flight Recorder dumps written on the timeout
(TORCH_NCCL_DUMP_ON_TIMEOUT, TORCH_FR_DUMP_TEMP_FILE) and the NCCL RAS status read while the job hangs.
Env: HANG_TIMEOUT_S (the process groups' timeout, default 60).
"""

import datetime
import os

import torch
import torch.distributed as dist


def main():
    rank = int(os.environ["RANK"])
    world = int(os.environ["WORLD_SIZE"])
    local = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    timeout = datetime.timedelta(seconds=int(os.environ.get("HANG_TIMEOUT_S", "60")))
    dist.init_process_group("nccl", timeout=timeout, device_id=torch.device("cuda", local))
    x = torch.ones(1 << 20, device="cuda")
    for step in range(1, 4):
        if not (rank == world - 1 and step == 2):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        print(f"rank {rank}: step {step} done", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
