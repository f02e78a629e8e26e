"""meshscope-probe's gloo results against torch.distributed's on the same groups and data.

The probe (8 local ranks, dp 4, cp 2, ep 2, against a real `meshscope serve`) writes every collective's input
and output (--dump-results). Then 8 torch ranks (torch 2.x from the project's .venv, gloo, loopback) create
the same groups and run torch's own collective on the same inputs: all_reduce, all_gather_into_tensor,
reduce_scatter_tensor and all_to_all_single must give exactly the probe's outputs. The inputs are checked
against the pattern docs/probe.md documents (member r's element i is r + 1 + (i % 13)), and every dim of the
plan must have been measured with the collectives docs/probe.md lists for it, so neither side can quietly
skip a case.

    gloo_vs_torch.py MESHSCOPE_BIN MESHSCOPE_PROBE_BIN
"""

import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from datetime import timedelta

os.environ["CUDA_VISIBLE_DEVICES"] = ""
os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
os.environ.setdefault("OMP_NUM_THREADS", "1")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

from meshscope_serve import MeshScopeServe  # noqa: E402

WORLD, DP, CP, EP = 8, 4, 2, 2
# docs/probe.md, "dim | collectives": what each dim carries in training (size-1 dims and edp: none)
COLLECTIVES = {"dp": ["all_gather", "reduce_scatter"], "cp": ["all_to_all", "all_reduce"],
               "efsdp": ["all_gather", "reduce_scatter"], "ep": ["all_to_all"], "expert_cp": ["all_reduce"]}


def torch_output(record, group):
    data = torch.tensor(record["input"], dtype=torch.float32)
    n = len(record["members"])
    if record["collective"] == "all_reduce":
        dist.all_reduce(data, group=group)
        return data.tolist()
    if record["collective"] == "all_gather":
        out = torch.empty(n * data.numel())
        dist.all_gather_into_tensor(out, data, group=group)
        return out.tolist()
    if record["collective"] == "reduce_scatter":
        out = torch.empty(data.numel() // n)
        dist.reduce_scatter_tensor(out, data, group=group)
        return out.tolist()
    if record["collective"] == "all_to_all":
        out = torch.empty_like(data)
        dist.all_to_all_single(out, data, group=group)
        return out.tolist()
    raise ValueError(record["collective"])


def torch_rank(rank, port, groups, records, answers):
    store = dist.TCPStore("127.0.0.1", port, is_master=False, timeout=timedelta(seconds=60))
    dist.init_process_group("gloo", store=store, rank=rank, world_size=WORLD, timeout=timedelta(seconds=60))
    handles = {}
    for members in groups:  # every rank creates every group, in the probe's creation order
        handles[tuple(members)] = dist.new_group(members)
    differences = []
    for record in records:
        got = torch_output(record, handles[tuple(record["members"])])
        if got != record["output"]:
            first = next(i for i, (a, b) in enumerate(zip(got + [None], record["output"] + [None])) if a != b)
            differences.append(f"rank {rank} {record['dim']} {record['members']} {record['collective']} "
                               f"{record['bytes']} B: element {first}: probe {record['output'][first:first + 3]}, "
                               f"torch {got[first:first + 3]}")
    dist.barrier()
    dist.destroy_process_group()
    answers.put((rank, len(records), differences))


def main():
    meshscope, probe = sys.argv[1], sys.argv[2]
    failures = []
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="meshscope-probe-dump-") as dump:
        serve = MeshScopeServe(meshscope, token="probe-token")
        try:
            run = subprocess.run([probe, "--local", str(WORLD), "--dp", str(DP), "--cp", str(CP), "--ep", str(EP),
                                  "--sizes", "64:1K", "--iters", "1", "--warmup", "1", "--timeout", "60",
                                  "--collector", serve.url, "--token", "probe-token", "--dump-results", dump],
                                 capture_output=True, text=True, timeout=240)
        finally:
            serve.close()
        if run.returncode != 0:
            print(run.stdout[-3000:], run.stderr[-3000:])
            print(f"FAIL meshscope-probe exited {run.returncode}")
            return 1
        records = {}
        for rank in range(WORLD):
            with open(os.path.join(dump, f"rank{rank}.jsonl"), encoding="utf-8") as handle:
                records[rank] = [json.loads(line) for line in handle if line.strip()]
    probe_s = time.monotonic() - started

    for rank, rows in records.items():
        for row in rows:
            member = row["members"][row["position"]]
            if member != rank or row["input"] != [float(rank + 1 + i % 13) for i in range(len(row["input"]))]:
                failures.append(f"rank {rank}: input of {row['dim']} {row['collective']} is not the documented pattern")
        measured = {}
        for row in rows:
            measured.setdefault(row["dim"], [])
            if row["collective"] not in measured[row["dim"]]:
                measured[row["dim"]].append(row["collective"])
        # dp 4, cp 2, ep 2: expert mesh (1, 2, 2, 2); edp's one-rank groups carry nothing
        if measured != COLLECTIVES:
            failures.append(f"rank {rank} measured {measured}, docs/probe.md lists {COLLECTIVES}")
    groups = sorted({(row["creation"], tuple(row["members"])) for rows in records.values() for row in rows})
    group_list = [list(members) for _, members in groups]

    context = multiprocessing.get_context("fork")
    store = dist.TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False, timeout=timedelta(seconds=60))
    answers = context.Queue()
    processes = [context.Process(target=torch_rank, args=(rank, store.port, group_list, records[rank], answers))
                 for rank in range(WORLD)]
    for process in processes:
        process.start()
    compared = 0
    try:
        for _ in range(WORLD):
            rank, count, differences = answers.get(timeout=180)
            compared += count
            failures.extend(differences)
    finally:
        for process in processes:
            process.join(timeout=30)
            if process.is_alive():
                process.kill()
    print(f"torch {torch.__version__}: {compared} collective results of meshscope-probe (gloo, {len(group_list)} "
          f"groups, sizes 64 B to 1 KiB) compared with torch.distributed's; probe {probe_s:.1f} s, "
          f"{time.monotonic() - started:.1f} s in all")
    if compared == 0:
        failures.append("nothing was compared")
    for failure in failures[:20]:
        print("FAIL", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
