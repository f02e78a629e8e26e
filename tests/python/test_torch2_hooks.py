"""The torch.distributed hooks on what the installed torch (2.15, CPU) cannot produce, against a small fake
torch (tests/python/fake_torch), in fresh interpreters: split_group (DeviceMesh calls it only when the default
group has a bound CUDA device) and PyTorch 2.8's creation order (torch 2.9 and later create a dim's groups in
another order). Everything real torch can do is tested on it: test_torch_hooks.py (the hooks on 8 real ranks,
torch imported before install, a failing init_process_group) and test_real_job.py (autoattach, install first)."""

import json
import os
import subprocess
import sys
import unittest

from support import CLIENT, HERE, clean_env

from fake_collector import FakeCollector

FAKE_TORCH = os.path.join(HERE, "fake_torch")

SCRIPT = r"""
import json, sys
import meshscope_report
order = sys.argv[1]
if order == "torch-first":
    import torch.distributed
if order == "mesh-first":  # device_mesh bound new_group with `from ... import` before the hooks existed
    import torch.distributed.device_mesh
meshscope_report.install()
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
out = {"wrapped": all(hasattr(getattr(dist, n), "__wrapped__") for n in ("init_process_group", "new_group", "split_group")),
       "init_returned": dist.init_process_group("gloo")}
group = dist.new_group([1, 5])
out["same_group_object"] = group is dist._state["groups"][-1]
mesh = init_device_mesh("cpu", (2, 2, 2), mesh_dim_names=("a", "b", "c"))
out["mesh_shape"] = mesh.shape
barrier_before = dist.barrier
dist.barrier()
out["barrier_unwrapped"] = not hasattr(dist.barrier, "__wrapped__") and hasattr(barrier_before, "__wrapped__")
out["collectives"] = dist._state["collectives"]
print(json.dumps(out))
"""


class Torch2HooksTest(unittest.TestCase):
    def run_script(self, order, **extra):
        collector = FakeCollector()
        try:
            env = clean_env(PYTHONPATH=os.pathsep.join([CLIENT, FAKE_TORCH]), MESHSCOPE_URL=collector.url,
                            MESHSCOPE_JOB="fake2", RANK=5, WORLD_SIZE=8, **extra)
            process = subprocess.run([sys.executable, "-c", SCRIPT, order], env=env, capture_output=True,
                                     text=True, timeout=30)
            self.assertEqual(process.returncode, 0, process.stderr)
            return json.loads(process.stdout.strip().splitlines()[-1]), collector.events()
        finally:
            collector.close()

    def check(self, order, creation=None, **extra):
        """creation: rank 5's creation index per dim (its group's place among the dim's new_group calls), worked
        by hand for PyTorch >= 2.9's order: a's groups over (b, c) [0, 4], [1, 5], [2, 6], [3, 7]; b's over (a, c)
        [0, 2], [1, 3], [4, 6], [5, 7]; c's over (a, b) [0, 1], [2, 3], [4, 5], [6, 7]. {} for none."""
        creation = {"a": 1, "b": 3, "c": 2} if creation is None else creation
        out, events = self.run_script(order, **extra)
        self.assertEqual(out, {"wrapped": True, "init_returned": None, "same_group_object": True,
                               "mesh_shape": [2, 2, 2], "barrier_unwrapped": True, "collectives": 1})
        phases = [(e["phase"], e["status"]) for e in events]
        self.assertEqual(phases[:3], [("launch", "done"), ("process_group", "started"), ("process_group", "done")])
        # rank 5 of a (2, 2, 2) mesh sits at (1, 0, 1): its lines are a [1, 5], b [5, 7], c [4, 5]
        mesh = {"name": "a_b_c", "dim_names": ["a", "b", "c"], "shape": [2, 2, 2]}
        device_mesh = [e for e in events if e["phase"] == "device_mesh"]
        self.assertEqual([(e["status"], e["mesh"]) for e in device_mesh], [("started", mesh), ("done", mesh)])
        self.assertEqual(device_mesh[1]["groups"], {"a": [1, 5], "b": [5, 7], "c": [4, 5]})
        self.assertEqual(device_mesh[1].get("creation_index", {}), creation)
        done = [e for e in events if e["phase"] == "communicator" and e["status"] == "done"]
        self.assertEqual([e["groups"] for e in done], [{"group_0": [1, 5]}, {"a": [1, 5]}, {"b": [5, 7]}, {"c": [4, 5]}])
        self.assertEqual([e.get("creation_index", {}) for e in done],
                         [{}] + [{dim: creation[dim]} if dim in creation else {} for dim in ("a", "b", "c")])
        ready = [e for e in events if e["phase"] == "ready"]
        self.assertEqual(len(ready), 1)
        self.assertEqual(ready[0]["groups"], {"a": [1, 5], "b": [5, 7], "c": [4, 5], "group_0": [1, 5]})
        self.assertEqual(ready[0].get("creation_index", {}), creation)
        self.assertEqual(events[-1]["phase"], "exit")
        self.assertTrue(all(e["rank"] == 5 and e["world_size"] == 8 and e["job"] == "fake2" for e in events))

    def test_split_group_meshes(self):
        # one split_group call creates all of a dim's groups, in no order: no creation index
        self.check("install-first", creation={}, FAKE_TORCH_SPLIT=1)

    def test_torch28_creation_order(self):
        # PyTorch <= 2.8 walks a's groups by rows of swapdims(-1, 0), over (c, b): [0, 4], [2, 6], [1, 5], [3, 7],
        # so rank 5's a group [1, 5] is the third call; b's and c's orders are 2.9's.
        self.check("install-first", creation={"a": 2, "b": 3, "c": 2}, FAKE_TORCH_ORDER="2.8")

    def test_torch28_creation_order_of_the_expert_mesh(self):
        """FSDPTurbo's expert mesh (edp, efsdp, ep, expert_cp) = (1, 4, 2, 2) of (dp, cp, ep) = (8, 2, 2), rank 5
        at (0, 1, 0, 1), by hand (docs/protocol.md). PyTorch 2.9: edp's one-rank groups in rank order (5), efsdp
        [0, 4, 8, 12], [1, 5, 9, 13], ... (1), ep over (efsdp, expert_cp) [0, 2], [1, 3], [4, 6], [5, 7] (3),
        expert_cp over (efsdp, ep) [0, 1], [2, 3], [4, 5] (2). PyTorch 2.8: edp over (expert_cp, efsdp, ep), the
        even ranks first (8 + 2 = 10), efsdp over (expert_cp, ep): [0, 4, 8, 12], [2, 6, 10, 14], [1, 5, 9, 13]
        (2); ep and expert_cp as in 2.9."""
        script = r"""
import meshscope_report
meshscope_report.install()
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
dist.init_process_group("gloo")
init_device_mesh("cpu", (1, 4, 2, 2), mesh_dim_names=("edp", "efsdp", "ep", "expert_cp"))
dist.barrier()
"""
        for version, expected in (("2.9", {"edp": 5, "efsdp": 1, "ep": 3, "expert_cp": 2}),
                                  ("2.8", {"edp": 10, "efsdp": 2, "ep": 3, "expert_cp": 2})):
            with self.subTest(version=version):
                collector = FakeCollector()
                try:
                    env = clean_env(PYTHONPATH=os.pathsep.join([CLIENT, FAKE_TORCH]), MESHSCOPE_URL=collector.url,
                                    MESHSCOPE_JOB="expert", RANK=5, WORLD_SIZE=16, FAKE_TORCH_ORDER=version)
                    process = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                                             timeout=30)
                    self.assertEqual(process.returncode, 0, process.stderr)
                    events = collector.events()
                finally:
                    collector.close()
                done = [e for e in events if e["phase"] == "device_mesh" and e["status"] == "done"]
                self.assertEqual(done[0]["groups"], {"edp": [5], "efsdp": [1, 5, 9, 13], "ep": [5, 7],
                                                     "expert_cp": [4, 5]})
                self.assertEqual(done[0]["creation_index"], expected)


if __name__ == "__main__":
    unittest.main()
