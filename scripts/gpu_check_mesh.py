#!/usr/bin/env python3
"""Real torch.distributed DeviceMesh objects against `meshscope plan`, on CPU ranks with gloo (PyTorch 2.x).

For each layout, 16 (or --world) processes run init_process_group("gloo") with the Python attach hook
installed (clients/python, MESHSCOPE_URL), then build LlamaFactory's data mesh (dp, cp) and FSDPTurbo's
expert mesh (edp, efsdp, ep, expert_cp) with init_device_mesh. Checked:
  - the groups torch creates (every new_group / split_group call, in call order, recorded on every rank)
    equal the plan's groups in its creation order (torch29 for PyTorch >= 2.9, else torch28);
  - each rank's own group of each dim (mesh.get_group(dim)) equals the plan's group containing it;
  - the collector received every rank's meshes and groups from the hook, with no topology or group finding.
Usage: gpu_check_mesh.py MESHSCOPE_BIN COLLECTOR_URL [--world 16]
Exit status: 0 all equal; 1 a difference (printed); 77 no torch >= 2 with init_device_mesh here.
"""
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "clients", "python"))

try:
    import torch
    import torch.distributed as dist
    import torch.multiprocessing as mp
    from torch.distributed.device_mesh import init_device_mesh  # noqa: F401  (torch >= 2.2)
except Exception as error:  # pragma: no cover - depends on the machine
    print(f"gpu_check_mesh: needs PyTorch 2.x with init_device_mesh ({error}); skipped")
    sys.exit(77)

LAYOUTS = [(16, 1, 8), (8, 2, 2), (8, 2, 4), (4, 4, 2), (16, 1, 1)]


def torch_order():
    major, minor = (int(x) for x in torch.__version__.split("+")[0].split(".")[:2])
    return "torch29" if (major, minor) >= (2, 9) else "torch28"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def worker(rank, world, port, layout, url, job, queue):
    dp, cp, ep = layout
    os.environ.update({"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "RANK": str(rank),
                       "WORLD_SIZE": str(world), "LOCAL_RANK": str(rank), "MESHSCOPE_URL": url,
                       "MESHSCOPE_JOB": job})
    import meshscope_report
    meshscope_report.install()
    import torch.distributed.distributed_c10d as c10d
    import torch.distributed.device_mesh as device_mesh
    created = []

    def record_new_group(original):
        def new_group(*args, **kwargs):
            ranks = kwargs.get("ranks", args[0] if args else None)
            created.append(sorted(int(r) for r in ranks) if ranks is not None else None)
            return original(*args, **kwargs)
        return new_group

    def record_split_group(original):
        def split_group(*args, **kwargs):
            for ranks in kwargs.get("split_ranks", args[1] if len(args) > 1 else []):
                created.append(sorted(int(r) for r in ranks))
            return original(*args, **kwargs)
        return split_group

    for module in (c10d, dist, device_mesh):
        if hasattr(module, "new_group"):
            setattr(module, "new_group", record_new_group(getattr(module, "new_group")))
        if hasattr(module, "split_group"):
            setattr(module, "split_group", record_split_group(getattr(module, "split_group")))
    dist.init_process_group("gloo", rank=rank, world_size=world)
    meshes = [("data", (dp, cp), ("dp", "cp"))]
    if ep > 1:
        efsdp = dp // ep
        meshes.append(("expert", (dp // (ep * efsdp), efsdp, ep, cp), ("edp", "efsdp", "ep", "expert_cp")))
    own = {}
    for _, shape, names in meshes:
        mesh = device_mesh.init_device_mesh("cpu", shape, mesh_dim_names=names)
        for name in names:
            own[name] = sorted(dist.get_process_group_ranks(mesh.get_group(name)))
    dist.barrier()
    queue.put((rank, created, own))
    dist.destroy_process_group()


def plan_groups(meshscope, layout, order):
    dp, cp, ep = layout
    text = subprocess.run([meshscope, "plan", "--dp", str(dp), "--cp", str(cp), "--ep", str(ep), "--order", order,
                           "--format", "json", "--no-ranks"], check=True, capture_output=True, text=True).stdout
    plan = json.loads(text)
    ordered = []  # (dim, members) in creation order: meshes in order, dims in order
    for mesh in plan["meshes"]:
        for dim in mesh["dim_names"]:
            ordered += [(dim, group) for group in mesh["groups"][dim]]
    return ordered


def collector_groups(url, job, rank):
    with urllib.request.urlopen(f"{url}/api/v1/jobs/{job}/ranks/{rank}", timeout=5) as answer:
        return {dim: sorted(members) for dim, members in json.load(answer).get("groups", {}).items()}


def main():
    meshscope, url = sys.argv[1], sys.argv[2].rstrip("/")
    world = int(sys.argv[sys.argv.index("--world") + 1]) if "--world" in sys.argv else 16
    order = torch_order()
    print(f"gpu_check_mesh: torch {torch.__version__}, creation order {order}, {world} CPU ranks (gloo)")
    ctx = mp.get_context("spawn")
    failures = 0
    for layout in LAYOUTS:
        if layout[0] * layout[1] != world:
            continue
        job = "gpu-check-mesh-%d-%d-%d-%d" % (layout + (int(time.time()),))
        queue = ctx.Queue()
        port = free_port()
        procs = [ctx.Process(target=worker, args=(r, world, port, layout, url, job, queue)) for r in range(world)]
        for p in procs:
            p.start()
        results = dict((r, (c, o)) for r, c, o in (queue.get(timeout=300) for _ in procs))
        for p in procs:
            p.join(60)
        expected = plan_groups(meshscope, layout, order)
        problems = []
        # Creation order: the non-trivial calls torch made, in order, against the plan's list (torch may reuse
        # the default group for a dim that spans the world, so calls are compared after dropping those).
        created = [g for g in results[0][0] if g is not None]
        listed = [sorted(g) for _, g in expected]
        if created != listed and created != [g for g in listed if len(g) != world]:
            first = next((i for i, (a, b) in enumerate(zip(created, listed)) if a != b), min(len(created), len(listed)))
            problems.append(f"creation order differs at call {first}: torch {created[first:first + 1]}, "
                            f"plan {listed[first:first + 1]} ({len(created)} calls, {len(listed)} groups)")
        for rank, (_, own) in sorted(results.items()):
            for dim, members in own.items():
                mine = next(g for d, g in expected if d == dim and rank in g)
                if sorted(mine) != members:
                    problems.append(f"rank {rank} {dim}: torch {members}, plan {sorted(mine)}")
        # The attach hook: every rank's groups as the collector saw them.
        deadline = time.time() + 30
        for rank in range(world):
            while True:
                try:
                    seen = collector_groups(url, job, rank)
                except Exception:
                    seen = {}
                if all(seen.get(d) == m for d, m in results[rank][1].items()) or time.time() > deadline:
                    break
                time.sleep(0.2)
            if any(seen.get(d) != m for d, m in results[rank][1].items()):
                problems.append(f"rank {rank}: the collector has groups {seen}, torch {results[rank][1]}")
        with urllib.request.urlopen(f"{url}/api/v1/jobs/{job}/findings", timeout=5) as answer:
            bad = [f["id"] for f in json.load(answer)["findings"]
                   if f["kind"] in ("topology_mismatch", "group_disagreement", "rank_error")]
        if bad:
            problems.append(f"findings: {bad}")
        print(f"  (dp, cp, ep) = {layout}: {len(listed)} groups, {len(created)} created by torch: "
              + ("same groups, same order, hook reports match" if not problems else "; ".join(problems)))
        failures += bool(problems)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
