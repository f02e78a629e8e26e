"""Runs real torch.distributed gloo jobs of 16 ranks with one fault each and writes their Flight Recorder dumps.

Every job is laid out as LlamaFactory lays out dp 16, cp 1, ep 4: the model mesh (mp_replicate, mp_shard) = (1, 16)
and the data mesh (dp, cp) = (16, 1) built by LlamaFactory's DistributedInterface, the expert mesh
(edp, efsdp, ep, expert_cp) = (1, 4, 4, 1) by FSDPTurbo's parallel state (tests/python/fixtures: the same calls to
init_device_mesh as upstream). So ep group g is [4g .. 4g+3] and efsdp group g is [g, g+4, g+8, g+12]. Each step
runs what an MoE step runs on those groups: an all_gather on the rank's efsdp group (expert weights), an all_to_all
on its ep group (token dispatch), an all_reduce on its efsdp group (expert gradients), an all_reduce on its dp
group (the other gradients).

Scenarios (the fault, and what the test expects the diagnosis to name; facts.json says it again):
  healthy   nothing injected: every collective completes; every rank dumps at the end.
  skip      rank 13 skips the ep all_to_all of step 2 (ep group 3 [12, 13, 14, 15], its seq 2) and goes on: its ep
            peers wait for it there, and it waits in the dp all_reduce of step 2 for them (waits across two dims).
  die       rank 2 dies (os._exit) at the start of step 2, before its dump: no record of it at all.
  host      rank 9 hangs in host code after step 1 (a wait that never ends), no collective pending; its Flight
            Recorder is dumped once every other rank has dumped, as a dump-on-timeout of the whole job would.

A rank whose collective waits TIMEOUT_S (its watchdog thread sees it), or fails (a peer gone), dumps its Flight
Recorder as torch names it (TORCH_FR_DUMP_TEMP_FILE + rank, pickle), then waits until every living rank has dumped
before it exits, so that no rank's exit breaks a collective of ranks still running. Every wait is bounded.

Usage: make_verdict_jobs.py OUT_DIR [SCENARIO...]   (default: every scenario). Writes OUT_DIR/SCENARIO/.
"""
import datetime
import json
import multiprocessing
import os
import sys
import threading
import time

os.environ["CUDA_VISIBLE_DEVICES"] = ""
os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
os.environ.setdefault("OMP_NUM_THREADS", "1")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python", "fixtures"))

WORLD = 16
DP, CP, EP = 16, 1, 4
STEPS = 3
TIMEOUT_S = 10       # a collective that waits this long is a hang
DEADLINE_S = 120     # no wait of the harness lasts longer
SCENARIOS = {
    "healthy": {},
    "skip": {"rank": 13, "step": 2, "cause": "skipped", "dim": "ep", "group": 3, "seq": 2, "op": "all_to_all"},
    "die": {"rank": 2, "step": 2, "cause": "no_record"},
    "host": {"rank": 9, "step": 1, "cause": "outside_collectives", "dim": "dp", "group": 0, "seq": 1,
             "op": "all_reduce"},
}

# Imported once here: the forked ranks inherit them (16 imports of torch would take minutes on 2 cores).
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch._C._distributed_c10d as c10d  # noqa: E402
import torch._dynamo  # noqa: E402,F401  (DeviceMesh.__getitem__ imports it)
import torch.distributed.tensor  # noqa: E402,F401
from llamafactory.v1.accelerator.interface import DistributedInterface  # noqa: E402
from llamafactory.v1.plugins.trainer_plugins.distributed import fsdpturbo  # noqa: E402


def wait_for(condition, what):
    """Waits until condition() holds, polling; gives up after DEADLINE_S."""
    end = time.monotonic() + DEADLINE_S
    while not condition():
        if time.monotonic() > end:
            print(f"gave up waiting for {what}", file=sys.stderr)
            return False
        time.sleep(0.05)
    return True


def dumped(out_dir):
    return sum(1 for name in os.listdir(out_dir) if name.startswith("done_"))


def living(scenario):
    return WORLD - (1 if scenario == "die" else 0)


def dump(rank, out_dir):
    c10d._dump_fr_trace_file(rank, includeStackTraces=False)
    with open(os.path.join(out_dir, f"done_{rank}"), "w") as f:
        f.write("dumped\n")


def rank_main(rank, scenario, out_dir, port):
    fault = SCENARIOS[scenario]
    faulty = fault.get("rank") == rank
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    # gloo's own timeouts are not what ends a hang here (its all_to_all and ring all_reduce do not all honour them):
    # the rank's watchdog dumps its Flight Recorder once a collective has waited TIMEOUT_S, as torch's NCCL watchdog
    # does on a timeout.
    dist.init_process_group("gloo", rank=rank, world_size=WORLD, timeout=datetime.timedelta(seconds=DEADLINE_S * 2))
    pending = {"since": None, "stuck_in_host": False}
    once = threading.Lock()

    def finish():  # once: a second caller blocks until the first ends the process
        with once:
            if pending["stuck_in_host"]:  # its dump comes once the others dumped theirs
                wait_for(lambda: dumped(out_dir) >= living(scenario) - 1, "the other ranks' dumps")
            dump(rank, out_dir)
            wait_for(lambda: dumped(out_dir) >= living(scenario), "every dump")
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(0)

    def watchdog():
        while True:
            since = pending["since"]
            if pending["stuck_in_host"] or (since is not None and time.monotonic() - since > TIMEOUT_S):
                finish()
            time.sleep(0.1)

    def collective(call, *args, **kwargs):
        pending["since"] = time.monotonic()
        call(*args, **kwargs)
        pending["since"] = None

    try:
        interface = DistributedInterface(cp_size=CP)
        state = fsdpturbo.get_fsdpturbo_parallel_state()
        state.initialize(interface, {"ep_size": EP})
        dp = interface._data_mesh["dp"].get_group()
        efsdp = state.expert_mesh["efsdp"].get_group()
        ep = state.expert_mesh["ep"].get_group()
        threading.Thread(target=watchdog, daemon=True).start()
        for step in range(1, STEPS + 1):
            if faulty and scenario == "die" and step == fault["step"]:
                os._exit(1)  # no dump, no line: gone
            weights = [torch.zeros(4) for _ in range(4)]
            collective(dist.all_gather, weights, torch.full((4,), float(rank)), group=efsdp)
            if not (faulty and scenario == "skip" and step == fault["step"]):
                collective(dist.all_to_all_single, torch.empty(8), torch.full((8,), float(rank)), group=ep)
            collective(dist.all_reduce, torch.ones(4), group=efsdp)
            collective(dist.all_reduce, torch.ones(2), group=dp)
            if faulty and scenario == "host" and step == fault["step"]:
                pending["stuck_in_host"] = True  # host code that never returns (bounded for the harness)
                threading.Event().wait(DEADLINE_S * 2)
                os._exit(1)
    except Exception as error:  # a peer gone: the job hangs or dies here
        print(f"rank {rank}: {type(error).__name__}: {str(error).splitlines()[0]}", file=sys.stderr)
    finish()


def run(scenario, out_dir, port):
    os.makedirs(out_dir, exist_ok=True)
    os.environ["TORCH_FR_BUFFER_SIZE"] = "2000"
    os.environ["TORCH_FR_DUMP_TEMP_FILE"] = os.path.join(out_dir, "nccl_trace_rank_")
    context = multiprocessing.get_context("fork")
    ranks = [context.Process(target=rank_main, args=(r, scenario, out_dir, port)) for r in range(WORLD)]
    for p in ranks:
        p.start()
    for p in ranks:
        p.join(DEADLINE_S * 3)
        if p.is_alive():
            p.kill()
            raise SystemExit(f"{scenario}: a rank did not end within the harness's deadline")
    for name in os.listdir(out_dir):
        if name.startswith("done_"):
            os.remove(os.path.join(out_dir, name))
    facts = {"scenario": scenario, "world": WORLD, "dp": DP, "cp": CP, "ep": EP, "steps": STEPS,
             "fault": SCENARIOS[scenario]}
    with open(os.path.join(out_dir, "facts.json"), "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True)
        f.write("\n")


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = argv[1]
    names = argv[2:] or list(SCENARIOS)
    for i, name in enumerate(names):
        if name not in SCENARIOS:
            print(f"unknown scenario {name!r}; known: {', '.join(SCENARIOS)}", file=sys.stderr)
            return 2
        started = time.monotonic()
        run(name, os.path.join(out, name), 29700 + (os.getpid() % 200) * 10 + i)
        print(f"{name}: {time.monotonic() - started:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
