"""`meshscope serve`'s per-communicator series on GET /metrics (docs/collector-metrics.md, "Per-communicator series"): an NCCL
INFO log of the records fixtures imported into a real collector (`meshscope import`), then /metrics scraped and its
meshscope_communicator_ranks and meshscope_communicator_state series checked against what the log itself says,
read here with a regular expression: the world communicator's commHash and size, each split's size and the members
that started it, and which of them completed their init. Then an NCCL RAS status in its text form, whose hashes RAS
prints with leading zeros (%016lx): the series spell them as NCCL Inspector does (0x%lx). Then the cap of 256
communicators a job, and the groups meshscope-probe's ranks report in their communicator events."""

import json
import os
import re
import subprocess
import unittest
import urllib.request

from meshscope_serve import MeshScopeServe

BIN = os.environ.get("MESHSCOPE_BIN", "")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LOG = os.path.join(ROOT, "tests", "records", "fixtures", "nccl-logs", "v2.26-mpirun.log")
RAS = os.path.join(ROOT, "tests", "records", "fixtures", "ras", "status-mixed.txt")
JOB = "4711"  # a SLURM job id, as the reporters name a job under srun
# The fixture's README: the world communicator, then ncclCommSplit for the efsdp groups (the first split of each
# process) and the ep groups (the second), each split's color its group's index along the dim.
SPLIT_DIMS = {1: "efsdp", 2: "ep"}
LINE = re.compile(r"NCCL INFO (\S+) comm (0x[0-9a-f]+) rank (\d+) nranks (\d+) .*?"
                  r"(?:commId (0x[0-9a-f]+)|splitCount (\d+) color (\d+)).*- Init (START|COMPLETE)")
SERIES = re.compile(r'^(meshscope_communicator_\w+)\{([^}]*)\} (\S+)$')


def communicators_in_log():
    """{key: (nranks, started ranks, completed ranks)}: key "world" or (dim, index)."""
    found = {}
    with open(LOG) as handle:
        for line in handle:
            m = LINE.search(line)
            if not m:
                continue
            _, _, rank, nranks, comm_id, split, color, stage = m.groups()
            process = line.split("<stdout>:")[1].split(" ")[0]  # node0:41000:41100: one process per mpirun rank
            key = ("world", comm_id) if comm_id else (SPLIT_DIMS[int(split)], int(color))
            entry = found.setdefault(key, [int(nranks), set(), set()])
            entry[1 if stage == "START" else 2].add(process)
    return found


def scrape(serve):
    with urllib.request.urlopen(serve.url + "/metrics", timeout=5) as response:
        text = response.read().decode("utf-8")
    series = []
    for line in text.splitlines():
        m = SERIES.match(line)
        if m:
            labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2)))
            series.append((m.group(1), labels, float(m.group(3))))
    return text, series


class CommunicatorSeriesTest(unittest.TestCase):
    def test_an_imported_nccl_log_gives_each_communicator_its_series(self):
        if not BIN:
            raise RuntimeError("MESHSCOPE_BIN is not set: ctest passes the meshscope binary")
        expected = communicators_in_log()
        self.assertEqual(len(expected), 1 + 4 + 2)  # the world, 4 efsdp groups, 2 ep groups (dp 8, ep 4)
        serve = MeshScopeServe(BIN)
        try:
            done = subprocess.run([BIN, "import", LOG, "--dp", "8", "--ep", "4", "--target", serve.url, "--job", JOB],
                                  capture_output=True, text=True, timeout=60)
            self.assertEqual(done.returncode, 0, done.stderr)
            text, series = scrape(serve)
            self.assertIn("# TYPE meshscope_communicator_ranks gauge", text)
            self.assertIn("# TYPE meshscope_communicator_state gauge", text)
            self.assertIn(f'meshscope_communicators_omitted{{slurm_job_id="{JOB}"}} 0', text)
            ranks = {}
            states = {}
            for name, labels, value in series:
                self.assertEqual(labels["slurm_job_id"], JOB)
                self.assertEqual(labels["source"], "NCCL log")
                key = (labels["dim"], int(labels["group"]))
                if name == "meshscope_communicator_ranks":
                    self.assertNotIn(key, ranks)
                    ranks[key] = (labels["comm_name"], int(labels["nranks"]), value)
                elif name == "meshscope_communicator_state":
                    states.setdefault(key, {})[labels["state"]] = value
            self.assertEqual(len(ranks), len(expected))
            for key, (nranks, started, completed) in expected.items():
                if key[0] == "world":
                    place = ("world", 0)
                    # The commHash as NCCL Inspector spells it: 0x and lowercase hex, the log's own spelling.
                    self.assertEqual(ranks[place][0], key[1])
                else:
                    place = key
                self.assertEqual(ranks[place][1:], (nranks, len(started)), place)
                formed = len(completed) == nranks
                self.assertEqual(states[place], {"formed": 1.0 if formed else 0.0,
                                                 "not_formed": 0.0 if formed else 1.0,
                                                 "stuck": 0.0, "failed": 0.0, "wrong_result": 0.0}, place)
            # The fixture's fault (its README): rank 6 never starts its ep split, so ep group 1 never formed.
            self.assertEqual(states[("ep", 1)]["not_formed"], 1.0)
            self.assertEqual(ranks[("ep", 1)][1:], (4, 3))
            # The Live API lists the same communicators.
            listed = serve.get(f"/api/v1/jobs/{JOB}/communicators")["records"]
            self.assertEqual(sorted((c.get("dim"), c.get("index"), c["nranks"], c["seen"], c["state"]) for c in listed),
                             sorted((d, i, r[1], int(r[2]), "formed" if states[(d, i)]["formed"] else "not_formed")
                                    for (d, i), r in ranks.items()))
        finally:
            serve.close()

    def test_ras_hashes_are_spelled_as_nccl_inspector_spells_them(self):
        if not BIN:
            raise RuntimeError("MESHSCOPE_BIN is not set: ctest passes the meshscope binary")
        # The text form names each communicator by its hash, 16 hex digits: "#0-0 (00f00dfeed000a11) ERROR".
        with open(RAS) as handle:
            hashes = sorted(set(re.findall(r"\b([0-9a-f]{16})\b", handle.read())))
        self.assertEqual(hashes, ["00f00dfeed000a11", "9e3779b97f4a7c15"])  # the fixture's README names both
        serve = MeshScopeServe(BIN)
        try:
            done = subprocess.run([BIN, "import", RAS, "--target", serve.url, "--job", "mixed"], capture_output=True,
                                  text=True, timeout=60)
            self.assertEqual(done.returncode, 0, done.stderr)
            _, series = scrape(serve)
            names = {labels["comm_name"]: labels for name, labels, _ in series
                     if name == "meshscope_communicator_ranks"}
            self.assertEqual(sorted(names), sorted("0x" + h.lstrip("0") for h in hashes))
            # The README: a 4-rank world communicator whose rank 1 aborted with ncclRemoteError, and a 2-rank one.
            self.assertEqual((names["0xf00dfeed000a11"]["nranks"], names["0x9e3779b97f4a7c15"]["nranks"]), ("4", "2"))
            self.assertTrue(all(labels["source"] == "NCCL RAS" and labels["dim"] == "" and labels["group"] == ""
                                for labels in names.values()))
            state = {labels["state"]: value for name, labels, value in series
                     if name == "meshscope_communicator_state" and labels["comm_name"] == "0xf00dfeed000a11"}
            self.assertEqual(state, {"formed": 0.0, "not_formed": 0.0, "stuck": 0.0, "failed": 1.0,
                                     "wrong_result": 0.0})
        finally:
            serve.close()

    def test_past_256_communicators_a_job_writes_those_in_trouble_and_counts_the_rest(self):
        if not BIN:
            raise RuntimeError("MESHSCOPE_BIN is not set: ctest passes the meshscope binary")
        # 300 communicators, the last 10 not formed: 256 are written, the 10 among them, and 44 counted as omitted.
        communicators = [{"name": f"0x{i + 1:x}", "comm_id": f"0x{i + 1:x}", "nranks": 2, "seen": 2,
                          "state": "formed" if i < 290 else "not_formed", "source": "NCCL log"} for i in range(300)]
        document = {"format": "meshscope.records/1", "findings": [], "ranks": [], "world_size": 2,
                    "communicators": communicators}
        serve = MeshScopeServe(BIN)
        try:
            request = urllib.request.Request(serve.url + "/api/v1/jobs/big/records", method="POST",
                                             data=json.dumps(document).encode(),
                                             headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=10) as response:
                self.assertEqual(response.status, 200)
            text, series = scrape(serve)
            written = [labels["comm_name"] for name, labels, _ in series if name == "meshscope_communicator_ranks"]
            self.assertEqual(len(written), 256)
            self.assertEqual(len(set(written)), 256)
            self.assertTrue({f"0x{i + 1:x}" for i in range(290, 300)} <= set(written))
            self.assertEqual(len([1 for name, _, _ in series if name == "meshscope_communicator_state"]), 256 * 5)
            self.assertIn('meshscope_communicators_omitted{slurm_job_id="big"} 44\n', text)
            self.assertEqual(len(serve.get("/api/v1/jobs/big/communicators")["records"]), 300)
        finally:
            serve.close()

    def test_groups_meshscope_probe_reports_have_their_series(self):
        if not BIN:
            raise RuntimeError("MESHSCOPE_BIN is not set: ctest passes the meshscope binary")
        # A 4-rank job, ep groups [0, 1] and [2, 3]: ranks 0 and 1 report group 0 formed; rank 2 reports group 1 not
        # formed (rank 3 never joined) and rank 3 sends nothing.
        def event(rank, communicators):
            return {"job": "probe-job", "rank": rank, "world_size": 4, "phase": "communicator", "status": "done",
                    "communicators": communicators}
        formed = {"dim": "ep", "index": 0, "members": [0, 1], "state": "formed"}
        stalled = {"dim": "ep", "index": 1, "members": [2, 3], "state": "not_formed", "missing": [3],
                   "error": "rank 3 never joined within 5 s"}
        body = [event(0, [formed]), event(1, [formed]), event(2, [stalled])]
        serve = MeshScopeServe(BIN)
        try:
            request = urllib.request.Request(serve.url + "/api/v1/events", method="POST", data=json.dumps(body).encode(),
                                             headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=10) as response:
                self.assertEqual(response.status, 200)
            _, series = scrape(serve)
            ranks = {(labels["comm_name"], labels["nranks"], labels["dim"], labels["group"], labels["source"]): value
                     for name, labels, value in series if name == "meshscope_communicator_ranks"}
            self.assertEqual(ranks, {("ep group 0", "2", "ep", "0", "meshscope-probe"): 2.0,
                                     ("ep group 1", "2", "ep", "1", "meshscope-probe"): 1.0})
            states = {(labels["group"], labels["state"]) for name, labels, value in series
                      if name == "meshscope_communicator_state" and value == 1.0}
            self.assertEqual(states, {("0", "formed"), ("1", "not_formed")})
        finally:
            serve.close()


if __name__ == "__main__":
    unittest.main()
