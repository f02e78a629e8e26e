#!/usr/bin/python3
"""Cross-checks `meshscope peers --format json` against an independent reference of the three peers' layouts.

The reference is written here from the frameworks' mathematical definitions (docs/peers.md cites the code read,
at pinned commits), never from meshscope's builders nor copied from the frameworks:

* Every layout is a set of orthogonal axes listed fastest first, a rank being sum(coordinate * stride) with the
  stride of an axis the product of the sizes before it (Megatron-Core's masked orthogonal rank groups; a
  row-major PyTorch DeviceMesh is the same with its dims reversed). A group along some axes is the set of ranks
  whose other coordinates are equal. Here the groups are found by enumerating every coordinate tuple
  (itertools.product) and bucketing ranks by their other coordinates; members are listed by increasing rank and
  groups by their smallest member, which is the creation order of both PyTorch >= 2.9 (lexicographic over the
  other dims) and Megatron's RankGenerator (first unmasked axis fastest): with mixed-radix strides both orders
  sort groups by their base rank.
* FSDPTurbo: the expert mesh (edp, efsdp, ep, expert_cp) = (1, world/cp/ep, ep, cp) row-major.
  TorchTitan: ParallelDims' sparse mesh (pp, dp_replicate, efsdp, ep) = (1, 1, world/ep, ep) row-major, with
  dp_shard = world // cp (dp_shard = -1). Megatron-Core: the expert RankGenerator, order tp-cp-ep-gtp_remat-dp-pp,
  sizes (1, 1, ep, 1, world/ep, 1).
* Errors: each framework's checks in its own order with its own texts (the f-strings of the code read).

Megatron-Core's own generator (BSD-3-Clause, NVIDIA) is not vendored: the groups below come from the definition.

Usage: peers_reference.py path/to/meshscope
"""
import itertools
import json
import subprocess
import sys


def groups_along(sizes, names, along):
    """All groups along the axes `along` of a layout whose axes `names` (sizes `sizes`) are listed fastest first."""
    strides = [1]
    for size in sizes[:-1]:
        strides.append(strides[-1] * size)
    buckets = {}
    for coordinate in itertools.product(*[range(size) for size in sizes]):
        rank = sum(c * s for c, s in zip(coordinate, strides))
        key = tuple(c for c, name in zip(coordinate, names) if name not in along)
        buckets.setdefault(key, []).append(rank)
    return sorted((sorted(members) for members in buckets.values()), key=lambda members: members[0])


def row_major(shape, names):
    """A PyTorch DeviceMesh's shape (last dim fastest) as axes listed fastest first."""
    return list(reversed(shape)), list(reversed(names))


def fsdpturbo(world, cp, ep):
    if world % cp != 0:
        return ("ValueError", f"world_size ({world}) must be divisible by cp_size ({cp}).")
    dp = world // cp
    if dp % ep != 0:
        return ("ValueError", f"dp_size must be divisible by ep_size, got {dp} % {ep} != 0.")
    if ep == 1:
        return [("ep", [[r] for r in range(world)])]
    efsdp = dp // ep
    sizes, names = row_major([dp // (ep * efsdp), efsdp, ep, cp], ["edp", "efsdp", "ep", "expert_cp"])
    return [(dim, groups_along(sizes, names, {dim})) for dim in ("ep", "edp", "efsdp", "expert_cp")]


def torchtitan(world, cp, ep):
    dp_shard = world // cp
    if dp_shard < 1:
        return ("AssertionError", "assert dp_shard >= 1")
    if dp_shard * cp != world:
        return ("AssertionError", f"Invalid parallel dims: dp_replicate(1) * dp_shard({dp_shard}) * cp({cp}) * "
                                  f"tp(1) * pp(1) != WORLD_SIZE({world})")
    sparse = dp_shard * cp
    if sparse % ep != 0:
        return ("ValueError", f"expert_parallel_degree ({ep}) must divide dp_shard * cp * tp ({sparse})")
    sizes, names = row_major([1, 1, sparse // ep, ep], ["pp", "dp_replicate", "efsdp", "ep"])
    dims = ("ep", "efsdp") if ep > 1 else ("ep",)
    return [(dim, groups_along(sizes, names, {dim})) for dim in dims]


def megatron(world, cp, ep):
    if world % cp != 0:
        return ("RuntimeError", f"world_size ({world}) is not divisible by {cp}")
    if world % ep != 0:
        return ("RuntimeError",
                f"world_size ({world}) is not divisible by expert_tensor_model_pipeline_parallel size ({ep})")
    sizes = [1, 1, ep, 1, world // ep, 1]
    names = ["tp", "cp", "ep", "gtp_remat", "dp", "pp"]
    return [("ep", groups_along(sizes, names, {"ep"})), ("expt_dp", groups_along(sizes, names, {"dp"}))]


def cross_node(groups, gpus_per_node):
    return sum(1 for g in groups if len({r // gpus_per_node for r in g}) > 1)


# (world, cp, ep, gpus_per_node): every framework lays out at least 20 of them; the rest are refused by one, two
# or all three (each with its own text).
SHAPES = [
    (1, 1, 1, 8), (2, 1, 2, 8), (4, 1, 4, 8), (8, 1, 8, 8), (8, 2, 2, 8), (8, 2, 4, 4), (16, 1, 2, 8),
    (16, 1, 8, 8), (16, 2, 2, 8), (16, 2, 4, 4), (16, 4, 2, 8), (16, 4, 4, 8), (16, 1, 16, 8), (16, 2, 1, 8),
    (24, 2, 3, 8), (24, 3, 2, 8), (32, 2, 8, 8), (32, 4, 8, 8), (48, 3, 4, 8), (64, 1, 8, 8), (64, 2, 8, 8),
    (64, 4, 16, 8), (12, 2, 3, 4), (18, 3, 3, 2), (128, 2, 16, 8), (64, 8, 8, 8), (96, 2, 12, 8), (256, 4, 32, 8),
    # refused by some
    (16, 4, 8, 8), (8, 4, 8, 8), (12, 4, 6, 4), (12, 2, 4, 8), (16, 2, 3, 8), (16, 3, 1, 8), (4, 8, 1, 8),
    (2, 1, 3, 8), (12, 2, 8, 8), (10, 4, 5, 8),
]


def main():
    meshscope = sys.argv[1]
    failures = 0
    laid_out = {"fsdpturbo": 0, "torchtitan": 0, "megatron": 0}
    references = {"fsdpturbo": fsdpturbo, "torchtitan": torchtitan, "megatron": megatron}
    for world, cp, ep, gpus in SHAPES:
        run = subprocess.run([meshscope, "peers", "--world", str(world), "--cp", str(cp), "--ep", str(ep),
                              "--gpus-per-node", str(gpus), "--format", "json"], capture_output=True, text=True)
        where = f"world {world} cp {cp} ep {ep} gpus {gpus}"
        try:
            doc = json.loads(run.stdout)
        except json.JSONDecodeError:
            print(f"FAIL {where}: not JSON (exit {run.returncode}): {run.stdout!r} {run.stderr!r}")
            failures += 1
            continue
        got = {entry["framework"]: entry for entry in doc["frameworks"]}
        if [e["framework"] for e in doc["frameworks"]] != ["fsdpturbo", "torchtitan", "megatron"]:
            print(f"FAIL {where}: frameworks {list(got)}")
            failures += 1
        if (doc["schema"], doc["world"], doc["cp"], doc["ep"], doc["gpus_per_node"]) != (
                "meshscope.peers/1", world, cp, ep, gpus):
            print(f"FAIL {where}: header {doc}")
            failures += 1
        any_layout = False
        for name, reference in references.items():
            want = reference(world, cp, ep)
            entry = got.get(name, {})
            if isinstance(want, tuple):
                have = (entry.get("error", {}).get("type"), entry.get("error", {}).get("message"))
                if have != want or "dims" in entry:
                    print(f"FAIL {where} {name}: error {have}, want {want}")
                    failures += 1
                continue
            any_layout = True
            laid_out[name] += 1
            have = [(d["name"], d["groups"]) for d in entry.get("dims", [])]
            if have != want:
                print(f"FAIL {where} {name}: dims {[n for n, _ in have]} differ from {[n for n, _ in want]} "
                      f"or their groups do")
                failures += 1
            for d, (_, groups) in zip(entry.get("dims", []), want):
                if d["cross_node_groups"] != cross_node(groups, gpus):
                    print(f"FAIL {where} {name} {d['name']}: cross_node_groups {d['cross_node_groups']}, "
                          f"want {cross_node(groups, gpus)}")
                    failures += 1
        expected_exit = 0 if any_layout else 2
        if run.returncode != expected_exit:
            print(f"FAIL {where}: exit {run.returncode}, want {expected_exit}")
            failures += 1
    for name, count in laid_out.items():
        if count < 20:
            print(f"FAIL only {count} shapes laid out by {name}; the check needs 20")
            failures += 1
    print(f"{len(SHAPES)} shapes, laid out: {laid_out}, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
