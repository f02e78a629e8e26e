"""A real torch.distributed job (Debian's torch, gloo, CPU, 8 processes on loopback) building LlamaFactory
FSDPTurbo's meshes with new_group, attached to the real collector (`meshscope serve`) only through the
environment. Slow (8 x `import torch` on 2 cores): each test is one job of ~15-25 s.

Nothing here skips: the test command installs python3-torch and builds `meshscope`, so a missing one is a
failure, said as such."""

import json
import os
import tempfile
import unittest
import urllib.error

from support import TORCH_PYTHON, free_port, torch_python_available

from job_launch import attach_env, launch_torchrun, launch_workers
from meshscope_serve import MeshScopeServe, serve_binary

HAVE_TORCH = torch_python_available()
SERVE = serve_binary()
WORLD = 8
BAD_FINDINGS = {"topology_mismatch", "group_disagreement", "reinit_mismatch", "rank_error", "duplicate_rank"}


def expected_groups(rank, dp=8, ep=2):
    """LlamaFactory's groups for world 8, cp 1 (domain.md section 2): model mesh (1, 8) with its defaults (every
    rank its own mp_replicate group, one mp_shard group of all), data mesh (8, 1), expert mesh (1, dp/ep, ep, 1)."""
    efsdp = dp // ep
    return {
        "mp_replicate": [rank],
        "mp_shard": list(range(WORLD)),
        "dp": list(range(dp)),
        "cp": [rank],
        "edp": [rank],
        "efsdp": [rank % ep + k * ep for k in range(efsdp)],
        "ep": [rank // ep * ep + k for k in range(ep)],
        "expert_cp": [rank],
    }


def require_torch(test):
    test.assertTrue(HAVE_TORCH, f"no torch.distributed under {TORCH_PYTHON} (install python3-torch)")


def require_serve(test):
    test.assertTrue(SERVE, "no `meshscope serve`: MESHSCOPE_BIN must name the built meshscope binary")


class RealJobWithCollectorTest(unittest.TestCase):
    def setUp(self):
        require_torch(self)
        require_serve(self)
        self.serve = MeshScopeServe(SERVE, token="job-token")
        self.tmp = tempfile.TemporaryDirectory(prefix="meshscope-job-")
        self.job = None

    def tearDown(self):
        if self.job is not None:
            self.job.kill()
        self.serve.close()
        self.tmp.cleanup()

    def kinds(self, job_id):
        return sorted({f["kind"] for f in self.serve.findings(job_id)})

    def test_torchrun_all_ranks_ready_with_topology_and_groups(self):
        run_id = f"ready-{free_port()}"
        hold = os.path.join(self.tmp.name, "release")
        env = attach_env(url=self.serve.url, token="job-token")  # job id from TORCHELASTIC_RUN_ID
        self.job = launch_torchrun(env, ["--ep", "2", "--hold-file", hold], run_id=run_id)

        def all_ready():
            ranks = self.serve.ranks(run_id)
            return ranks if len(ranks) == WORLD and all(r["state"] == "ready" for r in ranks) else None

        ranks = self.serve.wait_for(all_ready, timeout=90)
        open(hold, "w").close()
        self.assertIsNotNone(ranks, f"ranks: {self.serve.ranks(run_id)}\nserve: {self.serve.output()}")
        stored = self.serve.stored_events(run_id)
        for entry in ranks:
            rank = entry["rank"]
            with self.subTest(rank=rank):
                self.assertEqual(entry["topology"], {"dp": 8, "cp": 1, "ep": 2, "mp_replicate": 1, "mp_shard": 8})
                # the groups as the collector stored them, from the rank's `ready` event
                ready = [e for e in stored if e["rank"] == rank and e["phase"] == "ready"]
                self.assertEqual(len(ready), 1)
                self.assertEqual(ready[0]["groups"], expected_groups(rank))
                meshes = {m["name"]: m for m in entry.get("meshes", [])}
                self.assertEqual(meshes["expert"]["shape"], [1, 4, 2, 1])
                self.assertEqual(entry["local_rank"], rank)
                self.assertTrue(entry["host"] and entry["pid"])
            # and as the monitor holds them: /ranks rows omit groups, GET /ranks/{rank} answers them
            path = f"/api/v1/jobs/{run_id}/ranks/{rank}"
            with self.subTest(rank=rank, endpoint=path):
                try:
                    detail = self.serve.get(path)
                except urllib.error.HTTPError as error:
                    self.fail(f"GET {path} answered {error.code}: {error.read()[:200]!r}")
                row = detail["rank"] if isinstance(detail.get("rank"), dict) else detail
                self.assertIn("groups", row, detail)
                groups = {k: v for k, v in row["groups"].items() if not k.startswith("group_")}
                self.assertEqual(groups, expected_groups(rank))
        self.assertEqual([k for k in self.kinds(run_id) if k in BAD_FINDINGS], [])
        self.assertEqual(self.job.wait(timeout=60), [0], self.job.output()[-3000:])
        exited = self.serve.wait_for(
            lambda: all(r["state"] == "exited" for r in self.serve.ranks(run_id)) or None, timeout=10)
        self.assertTrue(exited, self.serve.ranks(run_id))
        # the torchrun agent imports torch.distributed too, but never joins the job: it must send nothing
        self.assertEqual(sorted(r["rank"] for r in self.serve.ranks(run_id)), list(range(WORLD)))

    def test_one_rank_with_a_different_ep_is_named(self):
        run_id = f"mismatch-{free_port()}"
        env = attach_env(url=self.serve.url, token="job-token")
        # rank 5 builds (1, 2, 4, 1) while the others build (1, 4, 2, 1): the group creation then hangs or
        # fails, which is exactly when the collector must already name the rank.
        self.job = launch_workers(env, ["--ep", "2", "--odd-rank", "5", "--odd-ep", "4", "--timeout", "30"],
                                  run_id=run_id)
        findings = self.serve.wait_for(
            lambda: [f for f in self.serve.findings(run_id) if f["kind"] == "topology_mismatch"], timeout=90)
        self.assertTrue(findings, f"findings: {self.serve.findings(run_id)}\nserve: {self.serve.output()}")
        self.assertEqual(sorted({r for f in findings for r in f["ranks"]}), [5], findings)
        self.assertTrue(any("5" in f["message"] for f in findings), findings)
        odd = [r for r in self.serve.ranks(run_id) if r["rank"] == 5][0]
        self.assertEqual(odd["topology"], {"dp": 8, "cp": 1, "ep": 4, "mp_replicate": 1, "mp_shard": 8})

    def test_reinit_with_a_different_ep(self):
        run_id = f"reinit-{free_port()}"
        env = attach_env(url=self.serve.url, token="job-token", job=run_id)
        self.job = launch_workers(env, ["--ep", "2", "--reinit-ep", "4", "--result-dir", self.tmp.name],
                                  run_id="ignored-because-MESHSCOPE_JOB-wins")
        codes = self.job.wait(timeout=90)
        self.assertEqual(codes, [0] * WORLD, self.job.output()[-3000:])
        message = "FSDPTurbo parallel state is already initialized with (8, 1, 2), got (8, 1, 4)."
        for rank in range(WORLD):
            with open(os.path.join(self.tmp.name, f"rank{rank}.json"), encoding="utf-8") as handle:
                seen = json.load(handle)["error"]
            self.assertEqual(seen, {"type": "RuntimeError", "message": message, "raised_in": "fsdpturbo.py"})
        findings = self.serve.wait_for(
            lambda: [f for f in self.serve.findings(run_id) if f["kind"] == "reinit_mismatch"], timeout=20)
        self.assertTrue(findings, f"findings: {self.serve.findings(run_id)}")
        self.assertEqual(sorted({r for f in findings for r in f["ranks"]}), list(range(WORLD)))
        ranks = self.serve.ranks(run_id)
        self.assertTrue(all(r["error"] == {"type": "RuntimeError", "message": message} for r in ranks), ranks)


class RealJobWithoutCollectorTest(unittest.TestCase):
    def test_finishes_with_the_collector_down(self):
        """Attached to a collector that is down, every rank still initializes, finishes and exits 0 (the cap
        on the wait is a hang guard). How much time the reporter adds is a figure, not a test:
        tests/python/bench_reporter.py, docs/benchmarks.md."""
        require_torch(self)
        away = f"http://127.0.0.1:{free_port()}"  # nothing listens there
        attached = launch_workers(attach_env(url=away), ["--ep", "2"])
        try:
            self.assertEqual(attached.wait(timeout=120), [0] * WORLD, attached.output()[-3000:])
        finally:
            attached.kill()
        print(f"\n8-rank job attached to a collector that is down: {attached.seconds:.2f} s")


if __name__ == "__main__":
    unittest.main()
