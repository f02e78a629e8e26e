#!/usr/bin/env python3
"""Cross-checks `meshscope plan --format json` against PyTorch's own tensor ops (LlamaFactory's model mesh
included): the reference is the rank tensor's rows, as DeviceMesh itself builds them, which reaches worlds of up
to 2,048 ranks; tests/torch checks the same plans against real DeviceMesh ranks (up to 32).

For every topology below and both creation orders, the groups of every dim of every mesh must equal the rows
PyTorch builds from the rank tensor:
  torch28 (PyTorch <= 2.8):  arange(n).view(shape).swapdims(-1, d).reshape(-1, shape[d])
  torch29 (PyTorch >= 2.9):  arange(n).view(shape).permute(*other_dims, d).reshape(-1, shape[d])
and, for small worlds, every rank's coordinates must equal (mesh == rank).nonzero().

Usage: torch_crosscheck.py path/to/meshscope
torch is required (the project's .venv, made by `scripts/bootstrap.sh torch`): without it the check fails.
"""
import json
import random
import subprocess
import sys

try:
    import torch
except ImportError:
    print("torch is not installed for", sys.executable, "- run `scripts/bootstrap.sh torch` and use .venv/bin/python")
    sys.exit(1)


def torch_groups(shape, d, order):
    mesh = torch.arange(int(torch.tensor(shape).prod())).view(*shape)
    n = shape[d]
    if order == "torch28":
        return mesh.swapdims(-1, d).reshape(-1, n).tolist()
    others = [i for i in range(len(shape)) if i != d]
    return mesh.permute(*others, d).reshape(-1, n).tolist()


def torch_coords(shape, rank):
    mesh = torch.arange(int(torch.tensor(shape).prod())).view(*shape)
    return (mesh == rank).nonzero()[0].tolist()


def expected_meshes(dp, cp, ep, mp_replicate):
    """The meshes LlamaFactory and FSDPTurbo build, in that order, derived from dp/cp/ep/mp_replicate alone
    (shared/docs/domain.md, section 1): the model mesh (mp_replicate, mp_shard) with mp_shard = world /
    mp_replicate, the data mesh (dp, cp) and, for ep > 1, the expert mesh (edp, efsdp, ep, expert_cp) with
    efsdp = dp / ep and edp = dp / (ep * efsdp). Never read from meshscope's output, so a wrong shape there
    cannot hide."""
    world = dp * cp
    meshes = {"model": ([mp_replicate, world // mp_replicate], ["mp_replicate", "mp_shard"]),
              "data": ([dp, cp], ["dp", "cp"])}
    if ep > 1:
        efsdp = dp // ep
        edp = dp // (ep * efsdp)
        meshes["expert"] = ([edp, efsdp, ep, cp], ["edp", "efsdp", "ep", "expert_cp"])
    return meshes


def topologies():
    """(dp, cp, ep, mp_replicate): LlamaFactory's default model mesh (mp_replicate 1) and others."""
    fixed = [
        (16, 1, 8, 1), (8, 2, 2, 1), (16, 1, 2, 1), (16, 1, 16, 1), (8, 2, 4, 1), (16, 1, 1, 1), (1, 1, 1, 1),
        (2, 1, 2, 1), (12, 3, 2, 1), (24, 3, 4, 1), (6, 5, 3, 1), (32, 4, 8, 1), (64, 2, 16, 1), (9, 7, 3, 1),
        (48, 1, 6, 1), (20, 2, 5, 1),
        (16, 1, 8, 2), (8, 2, 2, 4), (12, 3, 2, 3), (24, 3, 4, 8), (6, 5, 3, 30), (9, 7, 3, 7),
    ]
    rng = random.Random(20261129)
    randomized = []
    while len(randomized) < 40:
        ep = rng.choice([1, 2, 3, 4, 6, 8, 16])
        efsdp = rng.randint(1, 12)
        cp = rng.randint(1, 6)
        world = ep * efsdp * cp
        if world <= 2048:
            mp_replicate = rng.choice([r for r in range(1, world + 1) if world % r == 0])
            randomized.append((ep * efsdp, cp, ep, mp_replicate))
    return fixed + randomized


def main():
    meshscope = sys.argv[1]
    checked_groups = checked_ranks = 0
    orders_differ = 0  # dims where the two orders list groups differently: proves the check can tell them apart
    failures = []
    for dp, cp, ep, mp_replicate in topologies():
        for order in ("torch29", "torch28"):
            with_ranks = dp * cp <= 64
            args = [meshscope, "plan", "--dp", str(dp), "--cp", str(cp), "--ep", str(ep), "--mp-replicate",
                    str(mp_replicate), "--order", order, "--format", "json"] + ([] if with_ranks else ["--no-ranks"])
            run = subprocess.run(args, capture_output=True, text=True, timeout=60)
            where = f"dp={dp} cp={cp} ep={ep} mp_replicate={mp_replicate} {order}"
            if run.returncode != 0:
                failures.append(f"{where}: exit {run.returncode}: {run.stderr.strip()}")
                continue
            plan = json.loads(run.stdout)
            expected = expected_meshes(dp, cp, ep, mp_replicate)
            names = [m["name"] for m in plan["meshes"]]
            if names != list(expected):
                failures.append(f"{where}: meshes {names}, expected {list(expected)}")
                continue
            for mesh in plan["meshes"]:
                shape, dim_names = expected[mesh["name"]]
                if mesh["shape"] != shape or mesh["dim_names"] != dim_names:
                    failures.append(f"{where}: {mesh['name']} mesh {mesh['shape']} {mesh['dim_names']}, "
                                    f"expected {shape} {dim_names}")
                    continue
                for d, dim in enumerate(dim_names):
                    want = torch_groups(shape, d, order)
                    got = mesh["groups"].get(dim)
                    if order == "torch28" and want != torch_groups(shape, d, "torch29"):
                        orders_differ += 1
                    checked_groups += len(want)
                    if got != want:
                        failures.append(f"{where}: {mesh['name']}.{dim} groups differ from PyTorch:\n"
                                        f"  meshscope {got[:6]}...\n  torch     {want[:6]}...")
            if with_ranks:
                for entry in plan["ranks"]:
                    for mesh in plan["meshes"]:
                        want = torch_coords(expected[mesh["name"]][0], entry["rank"])
                        checked_ranks += 1
                        if entry["coords"][mesh["name"]] != want:
                            failures.append(f"{where}: rank {entry['rank']} {mesh['name']} coords "
                                            f"{entry['coords'][mesh['name']]} != torch {want}")
    print(f"torch {torch.__version__}: {len(topologies())} topologies x 2 orders, {checked_groups} groups and "
          f"{checked_ranks} rank coordinates compared")
    if orders_differ == 0:
        failures.append("no topology made torch28 and torch29 differ: the check would not notice a swapped order")
    print(f"{orders_differ} mesh dims are listed differently by torch28 and torch29")
    for failure in failures[:20]:
        print("FAIL", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
