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


# Evenly spaced groups of more members than this travel as {"first", "step", "count"} (docs/protocol.md, the
# collector's Group::list_limit): a 16,384-rank job's mp_shard group is every rank, 100 KB of JSON as a list.
GROUP_LIST_LIMIT = 16


def wire_group(members):
    """The group as the event carries it: {"first", "step", "count"} when its members are more than
    GROUP_LIST_LIMIT distinct, evenly spaced ranks, else the members as they were given."""
    if not isinstance(members, list) or len(members) <= GROUP_LIST_LIMIT:
        return members
    try:
        ordered = sorted(members)
        step = ordered[1] - ordered[0]
        if type(step) is not int or step < 1 or any(b - a != step for a, b in zip(ordered, ordered[1:])):
            return members
    except TypeError:  # not all integers: the collector says what is wrong with it
        return members
    return {"first": ordered[0], "step": step, "count": len(ordered)}


def wire_groups(event: dict) -> dict:
    """The event with its groups in wire form: every entry of "groups", and the members of "group" (the one
    process group a new_group call created). A new dict when it has either; the caller's is left untouched."""
    groups = event.get("groups")
    group = event.get("group")
    if not isinstance(groups, dict) and not isinstance(group, dict):
        return event
    out = dict(event)
    if isinstance(groups, dict):
        out["groups"] = {dim: wire_group(members) for dim, members in groups.items()}
    if isinstance(group, dict) and "members" in group:
        out["group"] = {**group, "members": wire_group(group["members"])}
    return out
