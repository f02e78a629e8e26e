"""Who this process is: rank, world size and local rank from the launcher's variables; host and pid.

Precedence: torchrun (RANK, WORLD_SIZE, LOCAL_RANK) > Slurm (SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID) >
Open MPI (OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE, OMPI_COMM_WORLD_LOCAL_RANK). torchrun under srun sets
both; torchrun's numbers are the ones torch.distributed uses. init_process_group's own answer replaces
these once it returns (see torch_hooks).
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass, replace
from typing import Mapping, Optional

_LAUNCHERS = (
    ("RANK", "WORLD_SIZE", "LOCAL_RANK"),
    ("SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"),
    ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"),
    ("PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"),  # MPICH / Intel MPI
)


def _nonneg(value: Optional[str]) -> Optional[int]:
    try:
        number = int(value) if value is not None else None
    except ValueError:
        return None
    return number if number is not None and number >= 0 else None


@dataclass(frozen=True)
class Identity:
    rank: Optional[int]
    world_size: Optional[int]
    local_rank: Optional[int]
    host: str
    pid: int
    device: Optional[str] = None
    device_uuid: Optional[str] = None

    @property
    def known(self) -> bool:
        return self.rank is not None and self.world_size is not None and 0 <= self.rank < self.world_size

    def with_rank(self, rank: int, world_size: int) -> "Identity":
        return replace(self, rank=rank, world_size=world_size)

    def fields(self, job: str) -> dict:
        """The fields every event of this process carries."""
        out = {"job": job, "rank": self.rank, "world_size": self.world_size, "host": self.host, "pid": self.pid}
        if self.local_rank is not None:
            out["local_rank"] = self.local_rank
        if self.device is not None:
            out["device"] = self.device
        if self.device_uuid is not None:
            out["device_uuid"] = self.device_uuid
        return out


def identity_from_env(env: Optional[Mapping[str, str]] = None) -> Identity:
    env = os.environ if env is None else env
    rank = world = local = None
    for rank_name, world_name, local_name in _LAUNCHERS:
        rank, world = _nonneg(env.get(rank_name)), _nonneg(env.get(world_name))
        if rank is not None and world is not None:
            local = _nonneg(env.get(local_name))
            break
        rank = world = None
    host = (env.get("MESHSCOPE_HOST") or socket.gethostname())[:256]
    return Identity(rank=rank, world_size=world, local_rank=local, host=host, pid=os.getpid())


def cuda_device(torch_module) -> tuple:
    """(device, uuid) of the current CUDA device, only when CUDA is already initialized: the reporter never
    initializes CUDA itself (that would change the job: fork after CUDA init breaks data loaders)."""
    cuda = getattr(torch_module, "cuda", None)
    if cuda is None or not cuda.is_initialized():
        return None, None
    index = cuda.current_device()
    uuid = getattr(cuda.get_device_properties(index), "uuid", None)
    return f"cuda:{index}", (str(uuid)[:256] if uuid is not None else None)
