"""The torch.distributed hooks on real torch 2.x (the project's .venv): 8 gloo ranks on loopback, torch imported
before install() (torch.distributed imports DeviceMesh with it, so this is also "device_mesh bound new_group
before the hooks existed"). Each rank calls new_group([1, 5]), init_device_mesh("cpu", (2, 2, 2)) and
LlamaFactory's model mesh init_device_mesh("cpu", (2, 4), ("mp_replicate", "mp_shard")), then a barrier; rank
5's events at a stand-in collector are checked against values worked by hand. Installing before torch is
imported is what autoattach does: the real jobs (test_real_job.py) cover that order.

One interpreter imports torch, then forks the ranks (a ninth `import torch` would cost more than the test).
test_torch2_hooks.py keeps, on a fake torch, only what torch 2.15 on a CPU cannot produce: split_group
(DeviceMesh uses it only with a bound CUDA device) and PyTorch 2.8's creation order."""

import json
import os
import subprocess
import unittest

from support import CLIENT, HERE, TORCH_PYTHON, clean_env, torch_python_available

from fake_collector import FakeCollector

SCRIPT = r"""
import atexit, faulthandler, json, multiprocessing, os, queue, shutil, sys, tempfile
from datetime import timedelta
import torch
import torch._dynamo  # what DeviceMesh slicing imports lazily: once here, not in every rank
import torch.distributed as dist

def rank_main(rank, store_path, url, answers):
    # a rank that hangs prints every thread's stack and exits, well inside the test's time
    faulthandler.dump_traceback_later(75, exit=True)
    os.environ.update(RANK=str(rank), WORLD_SIZE="8", MESHSCOPE_URL=url, MESHSCOPE_JOB="real-hooks")
    import meshscope_report
    meshscope_report.install()
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh
    store = dist.FileStore(store_path, 8)
    # the reporter's wrappers carry __meshscope_original__ (torch's own functions carry __wrapped__ already)
    wrapped = lambda f: hasattr(f, "__meshscope_original__")
    out = {"wrapped": all(wrapped(getattr(dist, n)) for n in ("init_process_group", "new_group")),
           "init_returned": dist.init_process_group("gloo", store=store, rank=rank, world_size=8,
                                                    timeout=timedelta(seconds=60))}
    group = dist.new_group([1, 5])
    out["group_ranks"] = dist.get_process_group_ranks(group) if rank in (1, 5) else None
    mesh = init_device_mesh("cpu", (2, 2, 2), mesh_dim_names=("a", "b", "c"))
    out["mesh_shape"] = list(mesh.shape)
    init_device_mesh("cpu", (2, 4), mesh_dim_names=("mp_replicate", "mp_shard"))
    # slices, as FSDPTurbo takes them: torch 2.15 builds them from the parent's layout (DeviceMesh(mesh=None))
    out["slices"] = [dist.get_process_group_ranks(mesh["a"].get_group()), list(mesh["b", "c"].shape)]
    barrier_before = dist.barrier
    dist.barrier()
    out["barrier_unwrapped"] = not wrapped(dist.barrier) and wrapped(barrier_before)
    dist.destroy_process_group()
    answers.put({"rank": rank, **out})
    faulthandler.cancel_dump_traceback_later()
    import atexit
    atexit._run_exitfuncs()  # multiprocessing ends a child with os._exit: run what a normal exit runs (the exit event)

def explode(url, answers):
    faulthandler.dump_traceback_later(75, exit=True)
    os.environ.update(RANK="0", WORLD_SIZE="1", MESHSCOPE_URL=url, MESHSCOPE_JOB="real-hooks-explode",
                      MASTER_ADDR="127.0.0.1", MASTER_PORT="1")
    import meshscope_report
    meshscope_report.install()
    import torch.distributed as dist
    try:
        dist.init_process_group("explode", rank=0, world_size=1)
        answers.put(None)
    except BaseException as exc:
        tb = exc.__traceback__
        while tb.tb_next is not None:
            tb = tb.tb_next
        answers.put({"type": type(exc).__name__, "message": str(exc), "raised_in": tb.tb_frame.f_code.co_filename})
    import atexit
    atexit._run_exitfuncs()

if __name__ == "__main__":
    context = multiprocessing.get_context("fork")
    answers = context.Queue()
    bad = context.Process(target=explode, args=(sys.argv[1], answers))
    bad.start()
    exploded = answers.get(timeout=60)
    bad.join(30)
    # a FileStore, not a TCPStore: a TCPStore server is a thread in this process, and forking a process while
    # one of its threads may hold a lock is how a child hangs once in a hundred runs
    store_dir = tempfile.mkdtemp(prefix="meshscope-hooks-")
    atexit.register(shutil.rmtree, store_dir, ignore_errors=True)
    store_path = os.path.join(store_dir, "store")
    ranks = [context.Process(target=rank_main, args=(r, store_path, sys.argv[1], answers)) for r in range(8)]
    for p in ranks:
        p.start()
    outs = []
    try:
        while len(outs) < len(ranks):
            outs.append(answers.get(timeout=90))
    except queue.Empty:
        answered = sorted(o["rank"] for o in outs)
        print(f"ranks that answered: {answered}; exit codes: {[p.exitcode for p in ranks]}", file=sys.stderr)
        for p in ranks:
            p.kill()
        sys.exit(1)
    for p in ranks:
        p.join(60)
    print(json.dumps({"exploded": exploded, "ranks": sorted(outs, key=lambda o: o["rank"])}))
    sys.exit(max(abs(p.exitcode or 0) for p in ranks))
"""


class RealTorchHooksTest(unittest.TestCase):
    def test_torch_imported_before_install(self):
        self.assertTrue(torch_python_available(), f"no torch under {TORCH_PYTHON} (run scripts/bootstrap.sh torch)")
        collector = FakeCollector()
        try:
            env = clean_env(PYTHONPATH=CLIENT, OMP_NUM_THREADS=1, GLOO_SOCKET_IFNAME="lo", CUDA_VISIBLE_DEVICES="")
            try:
                process = subprocess.run([TORCH_PYTHON, "-c", SCRIPT, collector.url], env=env, capture_output=True,
                                         text=True, timeout=150, cwd=HERE)
            except subprocess.TimeoutExpired as hung:
                self.fail(f"the 8 ranks did not finish in 150 s:\n{(hung.stderr or b'')[-6000:]}")
            self.assertEqual(process.returncode, 0, process.stdout[-2000:] + process.stderr[-3000:])
            result = json.loads(process.stdout.strip().splitlines()[-1])
            outs = {o["rank"]: o for o in result["ranks"]}
            events = [e for e in collector.events() if e["rank"] == 5 and e["job"] == "real-hooks"]
            exploded = [e for e in collector.events() if e["job"] == "real-hooks-explode"]
        finally:
            collector.close()
        # init_process_group("explode"): torch's own exception reaches the caller, raised in torch's code, and
        # the same type and message are reported
        error = result["exploded"]
        self.assertIsNotNone(error, "init_process_group('explode') did not raise")
        self.assertIn("/torch/distributed/", error["raised_in"])
        failed = [(e["phase"], e["error"]) for e in exploded if e["status"] == "failed"]
        self.assertEqual(failed, [("process_group", {"type": error["type"], "message": error["message"]})])
        self._check_ranks(outs, events)

    def _check_ranks(self, outs, events):
        """Rank 5's answers and events."""
        self.assertEqual(sorted(outs), list(range(8)))
        self.assertEqual(outs[5], {"rank": 5, "wrapped": True, "init_returned": None, "group_ranks": [1, 5],
                                   "mesh_shape": [2, 2, 2], "slices": [[1, 5], [2, 2]], "barrier_unwrapped": True})
        phases = [(e["phase"], e["status"]) for e in events]
        self.assertEqual(phases[:3], [("launch", "done"), ("process_group", "started"), ("process_group", "done")])
        # rank 5 of a (2, 2, 2) mesh sits at (1, 0, 1): its lines are a [1, 5], b [5, 7], c [4, 5]. PyTorch >= 2.9
        # creates a's groups over (b, c) [0, 4], [1, 5], [2, 6], [3, 7] (rank 5's: index 1); b's over (a, c)
        # [0, 2], [1, 3], [4, 6], [5, 7] (3); c's over (a, b) [0, 1], [2, 3], [4, 5], [6, 7] (2).
        creation = {"a": 1, "b": 3, "c": 2}
        abc = {"name": "a_b_c", "dim_names": ["a", "b", "c"], "shape": [2, 2, 2]}
        model = {"name": "model", "dim_names": ["mp_replicate", "mp_shard"], "shape": [2, 4]}
        device_mesh = [e for e in events if e["phase"] == "device_mesh"]
        self.assertEqual([(e["status"], e["mesh"]) for e in device_mesh],
                         [("started", abc), ("done", abc), ("started", model), ("done", model)])
        self.assertEqual(device_mesh[1]["groups"], {"a": [1, 5], "b": [5, 7], "c": [4, 5]})
        self.assertEqual(device_mesh[1]["creation_index"], creation)
        # rank 5 of a (2, 4) mesh sits at (1, 1): mp_replicate [1, 5] (over mp_shard: [0, 4], [1, 5], ...: index 1),
        # mp_shard [4, 5, 6, 7] (over mp_replicate: [0..3], [4..7]: index 1)
        self.assertEqual(device_mesh[3]["groups"], {"mp_replicate": [1, 5], "mp_shard": [4, 5, 6, 7]})
        self.assertEqual(device_mesh[3]["creation_index"], {"mp_replicate": 1, "mp_shard": 1})
        done = [e for e in events if e["phase"] == "communicator" and e["status"] == "done"]
        self.assertEqual([e["groups"] for e in done], [{"group_0": [1, 5]}, {"a": [1, 5]}, {"b": [5, 7]}, {"c": [4, 5]},
                                                        {"mp_replicate": [1, 5]}, {"mp_shard": [4, 5, 6, 7]}])
        # the process's group creations: 1 + 4 + 4 + 4 + 4 + 2, every rank calling new_group for every group
        self.assertEqual([e["group"]["index"] for e in done], [0, 2, 8, 11, 14, 18])
        # the slices are no meshes of their own and leave the session idle: the barrier sends `ready`
        ready = [e for e in events if e["phase"] == "ready"]
        self.assertEqual(len(ready), 1)
        self.assertEqual(ready[0]["groups"], {"a": [1, 5], "b": [5, 7], "c": [4, 5], "group_0": [1, 5],
                                              "mp_replicate": [1, 5], "mp_shard": [4, 5, 6, 7]})
        self.assertEqual(events[-1]["phase"], "exit")
        self.assertTrue(all(e["world_size"] == 8 and e["job"] == "real-hooks" for e in events))


if __name__ == "__main__":
    unittest.main()
