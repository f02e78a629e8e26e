"""Row-major device-mesh arithmetic (PyTorch's device_mesh.py layout), enough to name the groups a rank
joins: the members of this rank's group along each dim, and how many groups each dim creates."""

from __future__ import annotations

from typing import Dict, List, Sequence


def coordinate(shape: Sequence[int], rank: int) -> List[int]:
    coord = []
    stride = 1
    for size in shape:
        stride *= size
    for size in shape:
        stride //= size
        coord.append((rank // stride) % size)
    return coord


def group_along(shape: Sequence[int], dim: int, rank: int) -> List[int]:
    """Members of `rank`'s line along `dim`, by increasing coordinate (so sorted)."""
    stride = 1
    for size in shape[dim + 1 :]:
        stride *= size
    base = rank - coordinate(shape, rank)[dim] * stride
    return [base + i * stride for i in range(shape[dim])]


def groups_of_rank(shape: Sequence[int], dim_names: Sequence[str], rank: int) -> Dict[str, List[int]]:
    total = 1
    for size in shape:
        total *= size
    if not 0 <= rank < total:
        return {}
    return {name: group_along(shape, d, rank) for d, name in enumerate(dim_names)}


def groups_per_dim(shape: Sequence[int]) -> List[int]:
    """How many process groups each dim creates (world / shape[d]), in creation order of the dims."""
    total = 1
    for size in shape:
        total *= size
    return [total // size for size in shape]


# Meshes LlamaFactory builds, by their dim names; other meshes are named after their dims.
_KNOWN_MESHES = {
    ("dp", "cp"): "data",
    ("edp", "efsdp", "ep", "expert_cp"): "expert",
    ("mp_replicate", "mp_shard"): "model",
}


def mesh_name(dim_names: Sequence[str]) -> str:
    return _KNOWN_MESHES.get(tuple(dim_names), "_".join(dim_names) or "mesh")[:256]
