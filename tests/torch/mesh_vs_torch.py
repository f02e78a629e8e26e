"""`meshscope plan` against real PyTorch DeviceMesh: real `init_device_mesh("cpu", ...)` over gloo, one process
per rank, for LlamaFactory's model mesh (mp_replicate, mp_shard), its data mesh (dp, cp) and FSDPTurbo's expert
mesh (edp, efsdp, ep, expert_cp).

For every layout, every rank checks against `meshscope plan --format json`:
- its group in every dim of every mesh (`get_process_group_ranks(mesh[dim].get_group())`) and its coordinates
  (`mesh.get_coordinate()`);
- the exact sequence of process groups torch created, recorded by wrapping `new_group` and `split_group`
  where DeviceMesh calls them: it must be the plan's groups in the plan's creation order for the installed torch
  (`torch29` for >= 2.9, `torch28` before), dim after dim, mesh after mesh, except a dim whose one group is the
  whole world, for which torch reuses the default group and creates nothing;
- the sub-meshes FSDPTurbo slices by name (`expert_mesh["ep"]`, ...: no new group), a 2-dim slice
  (`expert_mesh["efsdp", "ep"]`) and its `_flatten()`, whose groups are the data mesh's dp groups
  (shared/docs/domain.md section 2) and are created in the dp groups' order;
- FSDPTurbo's `initialize` twice more: with the same topology (nothing happens, no group) and with another ep
  (the RuntimeError, its exact text).
A few layouts also carry values worked by hand (shared/docs/domain.md section 2), checked against torch itself.

LlamaFactory 0.9.5 (PyPI) has no v1 `fsdpturbo` plugin, so the ranks run the fixture in tests/python/fixtures
(the seed's `FSDPTurboParallelState.initialize`, the same calls with the same shapes and names); its singleton
has no reset, so the harness clears the module's `_STATE` between layouts.

Time: on 2 cores, 32 processes each importing torch would take minutes. This driver imports torch once and
forks its rank processes once; for each layout the first `world` of them join a fresh process group (a new
prefix of one TCPStore that the driver hosts), build the meshes, answer, and destroy the group.

    mesh_vs_torch.py MESHSCOPE_BIN SHARD     SHARD: small | mid | large | all | list
"""

import json
import multiprocessing
import os
import subprocess
import sys
import time
import traceback
from datetime import timedelta

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "python", "fixtures")

# Loopback only, and never a GPU (a visible one changes DeviceMesh's path: split_group, or a gloo group for
# the whole world instead of the default group). Set before torch is imported.
os.environ["CUDA_VISIBLE_DEVICES"] = ""
os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.distributed.device_mesh as device_mesh_module  # noqa: E402
from torch.distributed import distributed_c10d as c10d  # noqa: E402

sys.path.insert(0, FIXTURES)
# What DeviceMesh and the fixture import lazily, imported once, here, like torch: the forked ranks inherit it.
import torch._dynamo  # noqa: E402,F401  (DeviceMesh.__getitem__ imports it)
import torch.distributed.tensor  # noqa: E402,F401
from llamafactory.v1.accelerator.interface import DistributedInterface  # noqa: E402
from llamafactory.v1.plugins.trainer_plugins.distributed import fsdpturbo  # noqa: E402

# (dp, cp, ep, mp_replicate): world = dp * cp. cp > 1, ep 1, ep = dp, worlds 6, 12, 24, mp_replicate > 1.
LAYOUTS = {
    "small": [  # worlds 1 to 8
        (1, 1, 1, 1), (2, 1, 1, 1), (2, 1, 2, 1), (1, 2, 1, 1), (2, 1, 2, 2), (3, 1, 3, 1), (1, 3, 1, 3),
        (4, 1, 2, 1), (2, 2, 2, 1), (4, 1, 4, 2), (2, 2, 1, 4), (6, 1, 3, 1), (3, 2, 3, 1), (2, 3, 2, 3),
        (6, 1, 2, 2), (6, 1, 6, 6), (8, 1, 2, 1), (8, 1, 8, 1), (4, 2, 2, 1), (4, 2, 4, 2), (2, 4, 2, 1),
        (8, 1, 4, 4), (4, 2, 1, 8),
    ],
    "mid": [  # worlds 12 and 16
        (12, 1, 3, 1), (6, 2, 3, 2), (4, 3, 2, 1), (12, 1, 12, 1), (6, 2, 6, 3), (12, 1, 4, 6), (3, 4, 3, 1),
        (16, 1, 8, 1), (8, 2, 2, 1), (16, 1, 2, 2), (8, 2, 4, 4), (4, 4, 2, 1), (16, 1, 16, 1),
    ],
    "large": [  # worlds 24 and 32
        (24, 1, 4, 1), (12, 2, 6, 2), (8, 3, 4, 3), (6, 4, 3, 1), (24, 1, 8, 8), (32, 1, 8, 1), (16, 2, 4, 2),
        (8, 4, 8, 1), (32, 1, 2, 4), (16, 2, 16, 1), (8, 4, 2, 8),
    ],
}
LAYOUTS["all"] = LAYOUTS["small"] + LAYOUTS["mid"] + LAYOUTS["large"]

# Worked by hand (shared/docs/domain.md section 2), not read from meshscope: (layout, rank, expected).
HAND_WORKED = {
    (16, 1, 8, 1): (13, {"expert_coords": [0, 1, 5, 0], "efsdp": [5, 13], "ep": list(range(8, 16)),
                         "dp": list(range(16)), "cp": [13]}),
    (8, 2, 2, 1): (5, {"expert_coords": [0, 1, 0, 1], "efsdp": [1, 5, 9, 13], "ep": [5, 7], "expert_cp": [4, 5],
                       "dp": [1, 3, 5, 7, 9, 11, 13, 15], "cp": [4, 5]}),
}

TIMEOUT_S = 120  # one layout, all ranks; a hang (ranks that disagree) fails the test instead of blocking it


def creation_order_for(version):
    major, minor = (int(part) for part in version.split("+")[0].split(".")[:2])
    return "torch29" if (major, minor) >= (2, 9) else "torch28"


# ---- the rank processes ---------------------------------------------------------------------------------------
_calls = []  # this rank's group-creation calls, in order: (function, [sorted ranks per created group])


def _recording(function, name):
    def wrapper(*args, **kwargs):
        if name == "split_group":
            lines = kwargs.get("split_ranks", args[1] if len(args) > 1 else None) or []
            _calls.append((name, [sorted(int(r) for r in line) for line in lines]))
        else:
            ranks = kwargs.get("ranks", args[0] if args else None)
            world = c10d.get_world_size()
            _calls.append((name, [sorted(int(r) for r in ranks) if ranks is not None else list(range(world))]))
        return function(*args, **kwargs)

    wrapper.__wrapped__ = function
    return wrapper


def _install_recorders():
    """One wrapper per function, bound everywhere DeviceMesh and user code look it up (device_mesh imported
    them by name), so that each call is recorded exactly once."""
    for name in ("new_group", "split_group"):
        original = getattr(c10d, name)
        wrapper = _recording(original, name)
        for module in (c10d, dist, device_mesh_module):
            if getattr(module, name, None) is original:
                setattr(module, name, wrapper)


def _ranks(mesh):
    return [int(r) for r in dist.get_process_group_ranks(mesh.get_group())]


def _run_layout(rank, command, store):
    dp, cp, ep, mp_replicate = command["layout"]
    world = dp * cp
    prefix = dist.PrefixStore(f"layout-{command['index']}/", store)
    dist.init_process_group("gloo", store=prefix, rank=rank, world_size=world, timeout=timedelta(seconds=60))
    try:
        del _calls[:]
        out = {"rank": rank, "groups": {}, "coords": {}}
        interface = DistributedInterface(cp_size=cp, mp_replicate_size=mp_replicate)
        fsdpturbo._STATE = None  # the singleton has no reset (domain.md): a fresh one per layout
        state = fsdpturbo.get_fsdpturbo_parallel_state()
        state.initialize(interface, {"ep_size": ep})
        meshes = {"model": interface._model_mesh, "data": interface._data_mesh}
        if state.expert_mesh is not None:
            meshes["expert"] = state.expert_mesh
        for name, mesh in meshes.items():
            out["groups"][name] = {dim: _ranks(mesh[dim]) for dim in mesh.mesh_dim_names}
            coordinate = mesh.get_coordinate()
            out["coords"][name] = [int(c) for c in coordinate] if coordinate is not None else None
        out["calls"] = list(_calls)
        out["meshes"] = {name: {"shape": [int(s) for s in mesh.mesh.shape], "dim_names": list(mesh.mesh_dim_names)}
                         for name, mesh in meshes.items()}

        if state.expert_mesh is not None:
            out["state_meshes"] = {dim: _ranks(getattr(state, f"{dim}_mesh")) for dim in ("edp", "efsdp", "ep", "expert_cp")}
            del _calls[:]
            sliced = state.expert_mesh["efsdp", "ep"]
            out["slice"] = {"groups": {dim: _ranks(sliced[dim]) for dim in ("efsdp", "ep")}, "calls": list(_calls)}
            if hasattr(sliced, "_flatten"):
                del _calls[:]
                flat = sliced._flatten()
                out["flatten"] = {"name": list(flat.mesh_dim_names), "ranks": _ranks(flat), "calls": list(_calls)}

        del _calls[:]
        state.initialize(interface, {"ep_size": ep})  # the same topology: returns, changes nothing
        out["same_reinit_calls"] = list(_calls)
        other = ep if dp == 1 else (1 if ep != 1 else dp)
        if other != ep:
            try:
                state.initialize(interface, {"ep_size": other})
                out["reinit"] = None
            except RuntimeError as exc:
                out["reinit"] = {"type": type(exc).__name__, "message": str(exc)}
            out["reinit_topology"] = [state.dp_size, state.cp_size, state.ep_size]
        dist.barrier()  # every rank has answered before any group goes away
        return out
    finally:
        dist.destroy_process_group()


def _rank_loop(rank, connection, port):
    _install_recorders()
    store = None
    while True:
        command = connection.recv()
        if command is None:
            return
        try:
            if store is None:
                store = dist.TCPStore("127.0.0.1", port, is_master=False, timeout=timedelta(seconds=60))
            connection.send(_run_layout(rank, command, store))
        except BaseException:  # noqa: B902 - whatever it was, the driver reports it with the layout
            connection.send({"rank": rank, "error": traceback.format_exc()})


# ---- the driver -----------------------------------------------------------------------------------------------
def plan(meshscope, layout, order):
    dp, cp, ep, mp_replicate = layout
    args = [meshscope, "plan", "--dp", str(dp), "--cp", str(cp), "--ep", str(ep), "--mp-replicate", str(mp_replicate),
            "--order", order, "--format", "json"]
    run = subprocess.run(args, capture_output=True, text=True, timeout=60)
    if run.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: exit {run.returncode}: {run.stderr.strip()}")
    return json.loads(run.stdout)


def expected_calls(plan_json):
    """The new_group calls torch makes for these meshes: every group of every dim in the plan's listed order,
    except a dim whose one group is the whole world (torch reuses the default group for it)."""
    world = plan_json["topology"]["world"]
    calls = []
    for mesh in plan_json["meshes"]:
        for d, dim in enumerate(mesh["dim_names"]):
            if mesh["shape"][d] == world:
                continue
            calls.extend(["new_group", [group]] for group in mesh["groups"][dim])
    return calls


def group_of(groups, rank):
    found = [g for g in groups if rank in g]
    return found[0] if len(found) == 1 else None


def check_layout(layout, plan29, plan28, answers, order):
    """Failures (strings) of one layout: every rank's answer against the plan in torch's order."""
    dp, cp, ep, mp_replicate = layout
    world = dp * cp
    where = f"dp={dp} cp={cp} ep={ep} mp_replicate={mp_replicate}"
    failures = []
    planned = plan29 if order == "torch29" else plan28
    want_calls = expected_calls(planned)
    by_name = {mesh["name"]: mesh for mesh in planned["meshes"]}
    coords = {entry["rank"]: entry["coords"] for entry in planned["ranks"]}
    for answer in answers:
        rank = answer["rank"]
        if "error" in answer:
            failures.append(f"{where} rank {rank}: {answer['error']}")
            continue
        if list(answer["groups"]) != list(by_name):
            failures.append(f"{where} rank {rank}: torch built meshes {list(answer['groups'])}, plan {list(by_name)}")
            continue
        for name, mesh in by_name.items():
            if answer["meshes"][name] != {"shape": mesh["shape"], "dim_names": mesh["dim_names"]}:
                failures.append(f"{where} rank {rank}: {name} mesh {answer['meshes'][name]}, plan {mesh['shape']}")
            for dim in mesh["dim_names"]:
                want = group_of(mesh["groups"][dim], rank)
                if answer["groups"][name][dim] != want:
                    failures.append(f"{where} rank {rank}: {name}.{dim} torch {answer['groups'][name][dim]}, plan {want}")
            if answer["coords"][name] != coords[rank][name]:
                failures.append(f"{where} rank {rank}: {name} coords torch {answer['coords'][name]}, plan {coords[rank][name]}")
        got_calls = [[function, lines] for function, lines in answer["calls"]]
        if got_calls != want_calls:
            first = next((i for i, (a, b) in enumerate(zip(got_calls, want_calls)) if a != b), min(len(got_calls), len(want_calls)))
            failures.append(f"{where} rank {rank}: torch created {len(got_calls)} groups, the plan ({order}) lists "
                            f"{len(want_calls)}; first difference at call {first}: torch "
                            f"{got_calls[first] if first < len(got_calls) else None}, plan "
                            f"{want_calls[first] if first < len(want_calls) else None}")
        if answer["same_reinit_calls"]:
            failures.append(f"{where} rank {rank}: initialize with the same topology created groups {answer['same_reinit_calls']}")
        if "expert" in by_name:
            expert = by_name["expert"]
            want_sub = {dim: group_of(expert["groups"][dim], rank) for dim in expert["dim_names"]}
            if answer["state_meshes"] != want_sub:
                failures.append(f"{where} rank {rank}: FSDPTurbo's sub-meshes {answer['state_meshes']}, plan {want_sub}")
            if answer["slice"] != {"groups": {d: want_sub[d] for d in ("efsdp", "ep")}, "calls": []}:
                failures.append(f"{where} rank {rank}: expert_mesh['efsdp', 'ep'] {answer['slice']}, plan {want_sub}")
            flatten = answer.get("flatten")
            if flatten is not None:
                # flatten(efsdp, ep) is the dp group with the same cp index; created in the dp groups' order
                dp_groups = by_name["data"]["groups"]["dp"]
                want_flat_calls = [] if dp == world else [["new_group", [g]] for g in dp_groups]
                got_flat_calls = [[function, lines] for function, lines in flatten["calls"]]
                if flatten["ranks"] != group_of(dp_groups, rank) or got_flat_calls != want_flat_calls:
                    failures.append(f"{where} rank {rank}: _flatten() of efsdp, ep {flatten}, plan's dp group "
                                    f"{group_of(dp_groups, rank)} created as {want_flat_calls}")
                if flatten["name"] != ["efsdp_ep"]:
                    failures.append(f"{where} rank {rank}: _flatten() named {flatten['name']}")
        if "reinit_topology" in answer:
            other = 1 if ep != 1 else dp
            want = {"type": "RuntimeError",
                    "message": f"FSDPTurbo parallel state is already initialized with ({dp}, {cp}, {ep}), "
                               f"got ({dp}, {cp}, {other})."}
            if answer["reinit"] != want or answer["reinit_topology"] != [dp, cp, ep]:
                failures.append(f"{where} rank {rank}: re-initialization {answer['reinit']} left "
                                f"{answer['reinit_topology']}, expected {want} and [{dp}, {cp}, {ep}]")
    hand = HAND_WORKED.get(layout)
    if hand is not None:
        rank, want = hand
        answer = next((a for a in answers if a["rank"] == rank and "error" not in a), None)
        got = None if answer is None else {
            "expert_coords": answer["coords"]["expert"], "efsdp": answer["groups"]["expert"]["efsdp"],
            "ep": answer["groups"]["expert"]["ep"], "dp": answer["groups"]["data"]["dp"],
            "cp": answer["groups"]["data"]["cp"],
            **({"expert_cp": answer["groups"]["expert"]["expert_cp"]} if "expert_cp" in want else {})}
        if got != want:
            failures.append(f"{where} rank {rank}: torch {got}, worked by hand {want}")
    return failures


def main():
    meshscope, shard = sys.argv[1], sys.argv[2]
    if shard == "list":
        for name in ("small", "mid", "large"):
            print(name, len(LAYOUTS[name]), LAYOUTS[name])
        return 0
    layouts = LAYOUTS[shard]
    order = creation_order_for(torch.__version__)
    started = time.monotonic()
    plans = {layout: (plan(meshscope, layout, "torch29"), plan(meshscope, layout, "torch28")) for layout in layouts}
    planned_s = time.monotonic() - started

    context = multiprocessing.get_context("fork")
    store = dist.TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False, timeout=timedelta(seconds=60))
    ranks = max(dp * cp for dp, cp, _, _ in layouts)
    connections, processes = [], []
    for rank in range(ranks):
        parent_end, child_end = context.Pipe()
        process = context.Process(target=_rank_loop, args=(rank, child_end, store.port), daemon=True)
        process.start()
        connections.append(parent_end)
        processes.append(process)

    failures = []
    orders_differ = 0
    timings = []
    try:
        for index, layout in enumerate(layouts):
            dp, cp, ep, mp_replicate = layout
            world = dp * cp
            layout_started = time.monotonic()
            for rank in range(world):
                connections[rank].send({"index": index, "layout": layout})
            answers = []
            deadline = time.monotonic() + TIMEOUT_S
            for rank in range(world):
                if not connections[rank].poll(max(deadline - time.monotonic(), 0)):
                    failures.append(f"dp={dp} cp={cp} ep={ep} mp_replicate={mp_replicate}: rank {rank} did not answer "
                                    f"within {TIMEOUT_S} s")
                    raise TimeoutError
                answers.append(connections[rank].recv())
            plan29, plan28 = plans[layout]
            if expected_calls(plan29) != expected_calls(plan28):
                orders_differ += 1
            layout_failures = check_layout(layout, plan29, plan28, answers, order)
            failures.extend(layout_failures)
            seconds = time.monotonic() - layout_started
            timings.append(seconds)
            groups = len(answers[0].get("calls", []))
            print(f"{'ok  ' if not layout_failures else 'FAIL'} dp={dp:<2} cp={cp} ep={ep:<2} mp_replicate={mp_replicate:<2} "
                  f"world {world:<2}: {groups:3} groups created, {seconds:5.2f} s", flush=True)
    except TimeoutError:
        pass
    finally:
        for connection, process in zip(connections, processes):
            if process.is_alive():
                try:
                    connection.send(None)
                except OSError:
                    pass
        for process in processes:
            process.join(timeout=10)
            if process.is_alive():
                process.kill()

    print(f"torch {torch.__version__} ({order}): {len(timings)} of {len(layouts)} layouts, {sum(timings):.1f} s in the "
          f"ranks, {planned_s:.1f} s for the plans, {time.monotonic() - started:.1f} s in all; {orders_differ} layouts "
          f"whose torch28 and torch29 creation orders differ")
    if shard in ("large", "all") and orders_differ == 0:
        failures.append("no layout made torch28 and torch29 create groups in different orders: a swapped order "
                        "would go unnoticed")
    for failure in failures[:30]:
        print("FAIL", failure)
    if len(failures) > 30:
        print(f"... and {len(failures) - 30} more")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
