"""The FSDPTurbo hook in one process (no process group needed): wrapped whether LlamaFactory's module is
imported before or after install(); topology and expert mesh reported before initialize() can fail; the
re-initialization RuntimeError reported with its exact message and re-raised unchanged to the caller."""

import json
import os
import subprocess
import unittest

from support import CLIENT, FIXTURES, TORCH_PYTHON, clean_env, torch_python_available

from fake_collector import FakeCollector

SCRIPT = r"""
import json, sys
import meshscope_report
MODULE = "llamafactory.v1.plugins.trainer_plugins.distributed.fsdpturbo"
order = sys.argv[1]
if order == "before":
    import importlib
    m = importlib.import_module(MODULE)
    early = m.FSDPTurboParallelState()  # an instance made before install() is covered too
meshscope_report.install()
import importlib
m = importlib.import_module(MODULE)
from llamafactory.v1.accelerator.interface import DistributedInterface
state = early if order == "before" else m.FSDPTurboParallelState()
init = m.FSDPTurboParallelState.initialize
out = {"wrapped": getattr(init, "__wrapped__", None) is not None, "name": init.__name__,
       "returned": state.initialize(DistributedInterface(dp_size=4, build_data_mesh=False), {"ep_size": 1})}
iface = DistributedInterface(dp_size=4, build_data_mesh=False)
def call(s, ep):
    try:
        s.initialize(iface, {"ep_size": ep})
    except Exception as exc:
        tb = exc.__traceback__
        while tb.tb_next is not None:
            tb = tb.tb_next
        return {"type": type(exc).__name__, "message": str(exc), "raised_in": tb.tb_frame.f_code.co_filename.split("/")[-1]}
out["same"] = call(state, 1)
out["reinit"] = call(state, 2)
out["no_mesh"] = call(m.FSDPTurboParallelState(), 2)
out["bad_ep"] = call(m.FSDPTurboParallelState(), 3)
# LlamaFactory's model mesh (mp_replicate 2 of a world of 4): the hook reads it from the interface.
iface = DistributedInterface(dp_size=4, build_data_mesh=False, mp_replicate_size=2)
out["model"] = call(m.FSDPTurboParallelState(), 1)
print(json.dumps(out))
"""


HAVE_TORCH = torch_python_available()


class FSDPTurboHookTest(unittest.TestCase):
    def setUp(self):
        # no skip: the test command makes the .venv with torch, so its absence is a failure
        self.assertTrue(HAVE_TORCH, f"no torch under {TORCH_PYTHON} (run scripts/bootstrap.sh torch)")

    def run_order(self, order):
        collector = FakeCollector(token="t0k")
        try:
            env = clean_env(PYTHONPATH=os.pathsep.join([CLIENT, FIXTURES]), MESHSCOPE_URL=collector.url,
                            MESHSCOPE_TOKEN="t0k", MESHSCOPE_JOB=f"hook-{order}", RANK=0, WORLD_SIZE=1)
            process = subprocess.run([TORCH_PYTHON, "-c", SCRIPT, order], env=env, capture_output=True, text=True,
                                     timeout=60)
            self.assertEqual(process.returncode, 0, process.stderr)
            return json.loads(process.stdout.strip().splitlines()[-1]), collector.events()
        finally:
            collector.close()

    def check(self, order):
        out, events = self.run_order(order)
        self.assertTrue(out["wrapped"])
        self.assertEqual(out["name"], "initialize")
        self.assertIsNone(out["returned"])
        self.assertIsNone(out["same"])  # same topology again: a no-op, as in LlamaFactory
        self.assertEqual(out["reinit"], {"type": "RuntimeError", "raised_in": "fsdpturbo.py",
                                         "message": "FSDPTurbo parallel state is already initialized with (4, 1, 1), got (4, 1, 2)."})
        self.assertEqual(out["no_mesh"], {"type": "RuntimeError", "raised_in": "fsdpturbo.py",
                                          "message": "FSDPTurbo expert parallelism requires an initialized distributed device mesh."})
        self.assertEqual(out["bad_ep"]["message"], "dp_size must be divisible by ep_size, got 4 % 3 != 0.")

        state = [(e["status"], e.get("topology"), e.get("mesh"), e.get("error")) for e in events
                 if e["phase"] == "parallel_state"]
        expected_mesh = {"name": "expert", "dim_names": ["edp", "efsdp", "ep", "expert_cp"], "shape": [1, 2, 2, 1]}
        # LlamaFactory's default model mesh for a world of 4: (1, 4).
        t411 = {"dp": 4, "cp": 1, "ep": 1, "efsdp": 1, "edp": 1, "mp_replicate": 1, "mp_shard": 4}
        t412 = {"dp": 4, "cp": 1, "ep": 2, "efsdp": 2, "edp": 1, "mp_replicate": 1, "mp_shard": 4}
        t413 = {"dp": 4, "cp": 1, "ep": 3, "mp_replicate": 1, "mp_shard": 4}
        model = {"dp": 4, "cp": 1, "ep": 1, "efsdp": 1, "edp": 1, "mp_replicate": 2, "mp_shard": 2}
        self.assertIsNone(out["model"])
        self.assertEqual(state, [
            ("started", t411, None, None),
            ("done", t411, None, None),
            ("failed", t411, None, {"type": "RuntimeError", "message": out["reinit"]["message"]}),
            ("started", t412, expected_mesh, None),  # known before the failure: what the rank was building
            ("failed", t412, expected_mesh, {"type": "RuntimeError", "message": out["no_mesh"]["message"]}),
            ("started", t413, None, None),
            ("failed", t413, None, {"type": "ValueError", "message": out["bad_ep"]["message"]}),
            ("started", model, None, None),
            ("done", model, None, None),
        ])
        self.assertTrue(all(e["job"] == f"hook-{order}" and e["rank"] == 0 for e in events))
        self.assertEqual(events[-1]["phase"], "exit")
        done = [e for e in events if e["phase"] == "parallel_state" and e["status"] != "started"]
        self.assertTrue(all(e["duration_s"] >= 0 for e in done))

    def test_module_imported_after_install(self):
        self.check("after")

    def test_module_imported_before_install(self):
        self.check("before")


if __name__ == "__main__":
    unittest.main()
