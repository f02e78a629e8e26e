"""`meshscope diagnose` on a real torch job: the straggler rule and the --trace timeline.

make_straggler_job.py runs 16 gloo ranks with LlamaFactory's three meshes (init_device_mesh) twice: healthy, and
with rank 6 sleeping 2 s once, before the efsdp all_gather of step 2. The diagnosis must name exactly that rank
in exactly that dim, and nobody in the healthy job. The trace is read back as the Trace Event Format's spec
defines it (Google's "Trace Event Format" document: the JSON object form, "X" complete events with ts and dur in
microseconds, "i" instant events, "M" metadata events naming processes and threads), with Python's json and a
strict check of every event's fields; no package that reads the format without fetching a binary at run time was
found (docs/records.md says which were looked at).

Usage: MESHSCOPE_BIN=path/to/meshscope python -m unittest test_stragglers_torch   (from tests/records, under the
project's .venv). MESHSCOPE_STRAGGLER_JOB=DIR reads a job make_straggler_job.py wrote before instead of running one.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
MESHSCOPE = os.environ.get("MESHSCOPE_BIN", "meshscope")
LAYOUT = ["--dp", "16", "--ep", "4"]


def efsdp_group(rank):
    return [rank % 4 + 4 * k for k in range(4)]  # expert mesh (1, 4, 4, 1): ranks sharing the ep coordinate


def ep_group(rank):
    return [rank // 4 * 4 + k for k in range(4)]


def members_text(members):
    return "[" + ", ".join(str(m) for m in members) + "]"


class StragglersFromTorch(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="meshscope-stragglers-")
        cls.job = os.environ.get("MESHSCOPE_STRAGGLER_JOB")
        if not cls.job:
            cls.job = os.path.join(cls.tmp, "job")
            subprocess.run([sys.executable, os.path.join(HERE, "make_straggler_job.py"), cls.job], check=True,
                           timeout=540)
        cls.facts = {}
        for scenario in ("healthy", "late"):
            with open(os.path.join(cls.job, scenario, "facts.json")) as f:
                cls.facts[scenario] = json.load(f)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def diagnose(self, scenario, *extra):
        run = subprocess.run([MESHSCOPE, "diagnose", os.path.join(self.job, scenario, "dumps"), *LAYOUT, *extra],
                             capture_output=True, text=True, timeout=120)
        self.assertEqual(run.returncode, 0, run.stderr)
        return run

    def test_the_late_rank_is_named_in_its_dim(self):
        fault = self.facts["late"]["fault"]
        report = json.loads(self.diagnose("late", "--format", "json").stdout)
        stragglers = [f for f in report["findings"] if f["kind"] == "straggler"]
        self.assertEqual(len(stragglers), 1, stragglers)
        finding = stragglers[0]
        self.assertEqual(finding["ranks"], [fault["rank"]])
        # The efsdp group's step-th all_gather is its seq `step` (Flight Recorder counts a group's collectives).
        self.assertTrue(finding["message"].startswith(
            f"late arrivals in {fault['dim']}: rank {fault['rank']} entered seq {fault['step']} "
            f"({fault['collective']}) of the {fault['dim']} group "), finding["message"])
        self.assertIn(members_text(fault["group"]), finding["message"])
        self.assertEqual(finding["sources"], [os.path.join(self.job, "late", "dumps", f"nccl_trace_rank_{fault['rank']}")])
        late = report["stragglers"]["late"]
        self.assertEqual([(r["rank"], r["dim"]) for r in late], [(fault["rank"], fault["dim"])])
        self.assertGreaterEqual(late[0]["worst_ms"], 0.95 * fault["sleep_s"] * 1000)
        self.assertLess(late[0]["typical_ms"], 500)
        scores = {r["rank"]: r["score"] for r in report["stragglers"]["ranks"]}
        self.assertEqual(sorted(scores), list(range(16)))
        for rank, score in scores.items():
            self.assertTrue(0 <= score <= 1)
            self.assertEqual(score > 0.5, rank == fault["rank"], (rank, score))
        self.assertEqual(sorted(d["dim"] for d in report["stragglers"]["dims"]), ["efsdp", "ep", "world"])
        text = self.diagnose("late").stdout
        self.assertIn(f"  straggler: late arrivals in efsdp: rank {fault['rank']} entered seq {fault['step']}", text)

    def test_a_healthy_job_names_nobody(self):
        report = json.loads(self.diagnose("healthy", "--format", "json").stdout)
        self.assertEqual([f for f in report["findings"] if f["kind"] == "straggler"], [])
        self.assertEqual(report["stragglers"]["late"], [])
        self.assertEqual(len(report["stragglers"]["ranks"]), 16)
        for r in report["stragglers"]["ranks"]:
            self.assertLess(r["score"], 0.5, r)

    def read_trace(self, scenario):
        path = os.path.join(self.tmp, scenario + ".trace.json")
        run = self.diagnose(scenario, "--trace", path)
        self.assertEqual(run.stderr, "")
        with open(path) as f:
            trace = json.load(f)
        # The JSON object form: traceEvents, and the optional displayTimeUnit and otherData.
        self.assertIsInstance(trace, dict)
        self.assertLessEqual(set(trace), {"traceEvents", "displayTimeUnit", "otherData"})
        self.assertIn(trace.get("displayTimeUnit", "ms"), ("ms", "ns"))
        events = trace["traceEvents"]
        self.assertIsInstance(events, list)
        processes, threads, slices, instants = {}, {}, [], []
        for e in events:
            self.assertIsInstance(e, dict)
            self.assertIsInstance(e.get("pid"), int, e)
            self.assertIsInstance(e.get("tid"), int, e)
            self.assertIsInstance(e.get("name"), str, e)
            ph = e["ph"]
            if ph == "M":
                self.assertIn(e["name"], ("process_name", "process_sort_index", "thread_name", "thread_sort_index"))
                if e["name"] == "process_name":
                    self.assertNotIn(e["pid"], processes)
                    processes[e["pid"]] = e["args"]["name"]
                elif e["name"] == "thread_name":
                    self.assertNotIn((e["pid"], e["tid"]), threads)
                    threads[(e["pid"], e["tid"])] = e["args"]["name"]
                else:
                    self.assertIsInstance(e["args"]["sort_index"], int)
                continue
            self.assertIn(ph, ("X", "i"), e)
            self.assertIsInstance(e["ts"], (int, float))
            self.assertGreaterEqual(e["ts"], 0)
            self.assertIsInstance(e.get("cat", ""), str)
            self.assertIsInstance(e.get("args", {}), dict)
            # The spec names a thread or process by metadata before or after its events: check after all are read.
            if ph == "X":
                self.assertIsInstance(e["dur"], (int, float))
                self.assertGreaterEqual(e["dur"], 0)
                slices.append(e)
            else:
                self.assertIn(e["s"], ("t", "p", "g"))
                instants.append(e)
        for e in slices + instants:
            self.assertIn(e["pid"], processes, e)
            self.assertIn((e["pid"], e["tid"]), threads, e)
        return processes, threads, slices, instants

    def check_timeline(self, scenario):
        steps = self.facts[scenario]["steps"]
        processes, threads, slices, instants = self.read_trace(scenario)
        pid = {name: p for p, name in processes.items()}
        for name in ("world", "expert mesh, efsdp", "expert mesh, ep"):
            self.assertIn(name, pid)
        # Each rank a thread in each of the three processes its collectives ran in.
        for name, op, group_of in (("expert mesh, efsdp", "all_gather", efsdp_group),
                                   ("expert mesh, ep", "all_reduce", ep_group),
                                   ("world", "all_reduce", None)):
            for rank in range(16):
                self.assertEqual(threads[(pid[name], rank)], f"rank {rank}")
                mine = sorted((e for e in slices if e["pid"] == pid[name] and e["tid"] == rank),
                              key=lambda e: e["ts"])
                self.assertEqual([e["args"]["seq"] for e in mine], list(range(1, steps + 1)), (name, rank))
                for e in mine:
                    self.assertEqual(e["name"], op)
                    self.assertEqual(e["args"]["state"], "scheduled")  # gloo's recorder
                    if group_of:
                        self.assertTrue(e["args"]["group"].endswith(members_text(group_of(rank))), e)
                    else:  # 16 members are written first four, then the last
                        self.assertTrue(e["args"]["group"].startswith("world group [0, 1, 2, 3, "), e)
                    self.assertEqual(e["args"]["dim"], name.split(", ")[-1])
        # A rank's collectives in its program's order: efsdp, ep, world at each step.
        for rank in range(16):
            mine = sorted((e for e in slices if e["tid"] == rank), key=lambda e: e["ts"])
            self.assertEqual([processes[e["pid"]] for e in mine],
                             ["expert mesh, efsdp", "expert mesh, ep", "world"] * steps)
        return pid, slices, instants

    def test_trace_of_the_late_job(self):
        fault = self.facts["late"]["fault"]
        pid, slices, instants = self.check_timeline("late")
        efsdp = pid["expert mesh, efsdp"]
        at = {e["tid"]: e for e in slices if e["pid"] == efsdp and e["args"]["seq"] == fault["step"]}
        late = at[fault["rank"]]
        for peer in fault["group"]:
            if peer == fault["rank"]:
                continue
            # Its peers entered about 2 s before it and waited that long for it (until it entered).
            self.assertGreaterEqual(late["ts"] - at[peer]["ts"], 0.9 * fault["sleep_s"] * 1e6)
            self.assertGreaterEqual(at[peer]["dur"], 0.9 * fault["sleep_s"] * 1e6)
            self.assertAlmostEqual(at[peer]["ts"] + at[peer]["dur"], late["ts"], delta=1)
        self.assertEqual(late["dur"], 0)
        self.assertEqual([(e["cat"], e["pid"], e["tid"]) for e in instants], [("straggler", efsdp, fault["rank"])])
        self.assertEqual(instants[0]["ts"], late["ts"])
        self.assertEqual(instants[0]["args"]["seq"], fault["step"])

    def test_trace_of_the_healthy_job(self):
        _, _, instants = self.check_timeline("healthy")
        self.assertEqual(instants, [])

    def test_trace_that_cannot_be_written(self):
        for path, why in ((os.path.join(self.tmp, "no-such-dir", "t.json"), "No such file or directory"),
                          (self.tmp, "Is a directory")):
            run = subprocess.run([MESHSCOPE, "diagnose", os.path.join(self.job, "late", "dumps"), *LAYOUT,
                                  "--trace", path], capture_output=True, text=True, timeout=120)
            self.assertEqual(run.returncode, 2)
            self.assertEqual(run.stdout, "")
            self.assertEqual(run.stderr, f"meshscope diagnose: cannot write the trace to {path}: {why}\n")


if __name__ == "__main__":
    unittest.main()
