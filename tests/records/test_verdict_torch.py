"""meshscope diagnose's verdict on real torch jobs: 16 gloo ranks with LlamaFactory's three meshes, one fault each
(make_verdict_jobs.py runs them). Each expected root cause is the fault the job injected (which rank, where), its
group worked out here from the row-major rule (dp 16, ep 4: rank r's ep group is r // 4, its efsdp group r % 4),
never read from the code under test.

    test_verdict_torch.py MESHSCOPE_BIN [unittest args]
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
# dp 16 spans the world: torch's DeviceMesh gives such a dim the default group, so Flight Recorder records the dp
# all_reduce on default_pg, which the diagnosis places as the world group.
DP_DIM = ("world", 0)
MESHSCOPE = None
JOBS = None


def diagnose(scenario, form="json"):
    out = subprocess.run([MESHSCOPE, "diagnose", os.path.join(JOBS, scenario), "--dp", "16", "--ep", "4", "--format",
                          form], capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise AssertionError(f"meshscope diagnose exited {out.returncode}: {out.stderr}")
    return json.loads(out.stdout) if form == "json" else out.stdout


def facts(scenario):
    with open(os.path.join(JOBS, scenario, "facts.json")) as f:
        return json.load(f)


class VerdictFromTorch(unittest.TestCase):
    def check_folded(self, report):
        verdict = report["verdict"]
        self.assertEqual(report["findings"][0]["kind"], "verdict")
        self.assertEqual(report["findings"][0]["id"], verdict["id"])
        for finding in report["findings"][1:]:
            self.assertEqual(finding.get("consequence_of"), verdict["id"], finding)

    def test_healthy(self):
        report = diagnose("healthy")
        self.assertIsNone(report["verdict"])
        self.assertEqual(report["verdicts"], [])
        self.assertEqual(report["findings"], [])

    def test_skipped_all_to_all(self):
        fault = facts("skip")["fault"]
        rank = fault["rank"]
        report = diagnose("skip")
        verdict = report["verdict"]
        self.assertEqual(verdict["ranks"], [rank])
        self.assertEqual(verdict["cause"], "skipped")
        where = verdict["where"]
        self.assertEqual((where["dim"], where["group"], where["seq"], where["op"]),
                         ("ep", rank // 4, fault["seq"], "all_to_all"))
        ep_peers = [r for r in range(4 * (rank // 4), 4 * (rank // 4) + 4) if r != rank]
        first = verdict["waiting"][0]
        self.assertEqual((first["dim"], first["group"], first["seq"]), ("ep", rank // 4, fault["seq"]))
        self.assertEqual(first["waiting"], ep_peers)
        self.assertEqual(first["waits_on"], [rank])
        # It went on (its efsdp all_reduce completes: its efsdp peers are in other ep groups) to the step's dp
        # all_reduce, where it waits for its ep peers; they wait in the all_to_all, so their efsdp groups' all_reduce
        # waits for them, and the dp all_reduce too: waits across three dims, every one ending at rank 13.
        waiting = {(w["dim"], w["group"]) for w in verdict["waiting"]}
        self.assertEqual(waiting, {("ep", rank // 4), DP_DIM} | {("efsdp", peer % 4) for peer in ep_peers})
        self.assertEqual((verdict["instead"]["dim"], verdict["instead"]["group"]), DP_DIM)
        self.assertEqual(verdict["sentence"], f"rank {rank} skipped ep group {rank // 4}'s all_to_all at seq 2")
        self.check_folded(report)
        # The timeline (--trace) marks rank 13 in every group that waits on it, and only rank 13.
        trace_path = os.path.join(JOBS, "skip.trace.json")
        out = subprocess.run([MESHSCOPE, "diagnose", os.path.join(JOBS, "skip"), "--dp", "16", "--ep", "4", "--trace",
                              trace_path], capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        with open(trace_path) as f:
            events = json.load(f)["traceEvents"]
        marks = [e for e in events if e.get("cat") == "verdict"]
        self.assertEqual({e["tid"] for e in marks}, {rank})
        self.assertTrue(1 <= len(marks) <= len(verdict["waiting"]), marks)  # one per waiting group on the timeline
        for e in marks:
            self.assertEqual((e["ph"], e["name"], e["args"]["cause"]),
                             ("i", "verdict: " + verdict["sentence"], "skipped"))
        text = diagnose("skip", "text")
        self.assertLess(text.index(f"\nverdict: rank {rank} skipped ep group {rank // 4}'s all_to_all at seq 2\n"),
                        text.index("\ngroups ("))

    def test_rank_died(self):
        rank = facts("die")["fault"]["rank"]
        report = diagnose("die")
        verdict = report["verdict"]
        self.assertEqual(verdict["ranks"], [rank])
        self.assertEqual(verdict["cause"], "no_record")
        # its efsdp partners wait for it, and its ep peers
        waiting = {(w["dim"], w["group"]) for w in verdict["waiting"]}
        self.assertIn(("efsdp", rank % 4), waiting)
        self.assertIn(("ep", rank // 4), waiting)
        self.check_folded(report)
        # no progress line claims a group of rank 2 reached a seq it may not have reached
        for line in report["progress"]:
            self.assertFalse(line.startswith("every efsdp group") or line.startswith("every ep group"), line)
        partners = [r for r in range(rank % 4, 16, 4)]
        self.assertTrue(any(line.startswith(f"the efsdp group {rank % 4} [{', '.join(map(str, partners))}]")
                            and f"rank {rank} left no Flight Recorder dump" in line for line in report["progress"]),
                        report["progress"])

    def test_stuck_in_host_code(self):
        fault = facts("host")["fault"]
        rank = fault["rank"]
        report = diagnose("host")
        verdict = report["verdict"]
        self.assertEqual(verdict["ranks"], [rank])
        self.assertEqual(verdict["cause"], "outside_collectives")
        where = verdict["where"]
        self.assertEqual((where["dim"], where["group"], where["seq"], where["op"]),
                         DP_DIM + (fault["seq"], "all_reduce"))
        # its efsdp partners wait for it in step 2's all_gather, its ep peers in the all_to_all
        first_hop = {(w["dim"], w["group"]) for w in verdict["waiting"] if w["waits_on"] == [rank]}
        self.assertEqual(first_hop, {("efsdp", rank % 4), ("ep", rank // 4)})
        self.check_folded(report)


def main():
    global MESHSCOPE, JOBS
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    MESHSCOPE = sys.argv.pop(1)
    with tempfile.TemporaryDirectory() as work:
        JOBS = work
        subprocess.run([sys.executable, os.path.join(HERE, "make_verdict_jobs.py"), work], check=True, timeout=540)
        program = unittest.main(exit=False)
        return 0 if program.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
