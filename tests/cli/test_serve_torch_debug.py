"""meshscope serve --torch-debug against torch's own debug server: a real 4-rank gloo job of the project's torch
(torch_debug_job.py: LlamaFactory's meshes for dp 4, ep 2 built with init_device_mesh, start_debug_server on every
rank, rank 3 skipping the ep all_reduce of step 2) hangs, and the collector, reading the front end on rank 0 every
interval, shows the hang as a job through the HTTP API. The expected findings are the injected fault's, worked by
hand in the words tst_diagnose holds for the same fault in the Flight Recorder fixtures; the failure modes run
against a fake front end (fake_torch_debug.py) or a closed port, each with its exact reason; then each bad flag's
message. Every wait is for a condition, bounded by a deadline.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

from fake_torch_debug import FakeTorchDebug, closed_port, page
from test_serve_ras import Serve

BIN = os.environ.get("MESHSCOPE_BIN", "meshscope")
VENV_PYTHON = os.environ.get("MESHSCOPE_VENV_PYTHON", "")
HERE = os.path.dirname(os.path.abspath(__file__))
FR_FIXTURES = os.path.join(HERE, "..", "records", "fixtures", "fr")

FIX = ("check that the job is running and called torch.distributed.debug.start_debug_server(port=...) on every rank "
       "(its front end runs on rank 0 and needs jinja2, tabulate and requests or aiohttp), and that --torch-debug "
       "names rank 0's host and that port as seen from the collector")
STALLED = "; no rank recorded anything since the previous read (Flight Recorder)"
PATH = "/fr_trace_json?backend=gloo"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def summary(findings):
    return [(f["id"], f["kind"], f["ranks"], f["message"], f.get("sources")) for f in findings]


def unreadable(where, reason):
    return [("records/1", "peer_unreachable", [], "the collector cannot read torch's debug server at %s: %s"
             % (where, reason), [where])]


def fixture_dumps(scenario):
    """The JSON dumps real torch wrote for a Flight Recorder fixture (tests/records/fixtures/fr/README.md), by rank."""
    folder = os.path.join(FR_FIXTURES, scenario, "json")
    with open(os.path.join(FR_FIXTURES, scenario, "facts.json")) as f:
        world = json.load(f)["world"]
    dumps = []
    for rank in range(world):
        with open(os.path.join(folder, "nccl_trace_rank_%d.json" % rank)) as f:
            dumps.append(json.load(f))
    return dumps


class TorchJob:
    """torch_debug_job.py under the project's .venv, in its own session (so that it ends as a whole)."""

    def __init__(self):
        probe = subprocess.run([VENV_PYTHON, "-c", "import torch, jinja2, tabulate, requests"],
                               capture_output=True, text=True)
        if probe.returncode != 0:
            raise AssertionError("the project's .venv (MESHSCOPE_VENV_PYTHON=%r) lacks torch or the debug server's "
                                 "dependencies (tests/torch/requirements.txt; scripts/bootstrap.sh torch): %s"
                                 % (VENV_PYTHON, probe.stderr.strip().splitlines()[-1:]))
        self.port = free_port()
        master_port = free_port()
        while master_port == self.port:
            master_port = free_port()
        self.log = tempfile.TemporaryFile(mode="w+")
        self.process = subprocess.Popen([VENV_PYTHON, os.path.join(HERE, "torch_debug_job.py"), str(master_port),
                                         str(self.port)], stdout=self.log, stderr=subprocess.STDOUT,
                                        start_new_session=True)

    def output(self):
        self.log.seek(0)
        return self.log.read()

    def close(self):
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait(timeout=30)
        self.log.close()


class ServeTorchDebugTest(unittest.TestCase):
    def test_a_hung_job_is_diagnosed_live_from_its_debug_server(self):
        job = TorchJob()
        try:
            where = "127.0.0.1:%d" % job.port
            with Serve("--torch-debug", where, "--torch-debug-job", "live", "--torch-debug-interval", "0.5",
                       "--dp", "4", "--ep", "2") as serve:
                self.assertEqual(serve.started["torch_debug"], [{"address": where, "job": "live"}])
                # Worked by hand from the fault: the ep groups of (dp 4, ep 2) are [0, 1] and [2, 3]; rank 3 skipped
                # ep group 1's seq 2 (step 2) and went on to the world's seq 3 (seq 1 before the steps, one per
                # step), where ranks 0, 1 joined it; rank 2 waits in ep group 1's seq 2.
                ep = ("collective_stuck", [3], "the ep group 1 [2, 3] is stuck at seq 2 (all_reduce): rank 3 never "
                      "entered it; rank 2 entered it; rank 3 last recorded default_pg seq 3 (all_reduce)" + STALLED)
                world = ("collective_stuck", [2], "the world group [0, 1, 2, 3] is stuck at seq 3 (all_reduce): rank "
                         "2 never entered it; ranks 0, 1, 3 entered it; rank 2 last recorded ep group 1 seq 2 "
                         "(all_reduce)" + STALLED)

                def stuck():
                    if job.process.poll() is not None:
                        raise AssertionError("the job ended: %s" % job.output())
                    found = [(f["kind"], f["ranks"], f["message"]) for f in serve.findings("live")]
                    return ep in found and world in found and found
                try:
                    found = serve.wait_for("the hang's findings in job live", stuck, limit=180)
                except AssertionError:
                    print(job.output(), serve.findings("live"), file=sys.stderr)
                    raise
                # first the verdict: rank 3 skipped ep group 1's all_reduce at seq 2, every other stuck group waits
                self.assertEqual(found[0][:2], ("verdict", [3]))
                self.assertTrue(found[0][2].startswith("rank 3 skipped ep group 1's all_reduce at seq 2"), found[0])
                # The hang's findings are exactly the two stuck groups. A straggler finding may stand beside them:
                # rank 0 spawns the debug server's front end before its first collectives, and so can arrive late
                # into them (the straggler rule itself is tested with an injected delay in records.stragglers_torch).
                self.assertEqual(sorted(f for f in found if f[0] not in ("verdict", "straggler")), sorted([ep, world]))
                for f in serve.findings("live"):
                    self.assertEqual(f["sources"][0].split(" rank ")[0], where, f)
                # No hook ran: the world is the plan's, every rank named by the page with its worker's host.
                summary_ = serve.get("/api/v1/jobs/live")
                self.assertEqual((summary_["world_size"], summary_["ranks_seen"], summary_["events"]), (4, 4, 0))
                self.assertEqual(serve.get("/api/v1/jobs/live/ranks/2")["host"], socket.gethostname())

                # The job ends: its debug server no longer answers, and the job says so in place of the diagnosis.
                job.close()
                reason = "cannot connect to %s: Connection refused" % where
                serve.wait_for("the unreachable finding",
                               lambda: summary(serve.findings("live")) == unreadable(where, reason))
                self.assertEqual(serve.findings("live")[0]["fix"], FIX)
                self.assertEqual(serve.get("/api/v1/jobs/live")["world_size"], 4)
                err = serve.stop()
            self.assertEqual(err.splitlines()[-1], 'meshscope serve: cannot read torch\'s debug server at %s for '
                                                   'job "live": %s' % (where, reason))
        finally:
            if job.process.poll() is None:
                job.close()

    def test_the_stall_rule(self):
        # The skip fixture (real torch, 8 ranks, dp 8, ep 4: rank 6 skipped ep group 1's seq 2) served as torch's
        # front end serves it, one page per read, released one at a time. The hang shows only once two reads in a
        # row have every rank's Flight Recorder unchanged: at the first read nothing, at the second the finding; a
        # rank that records one more collective at the third hides it again; the same again at the fourth shows
        # it. Rank 0's worker answers each read 503 with the read's number, so that the job tells the reads apart
        # (ep group 1 and rank 6's last record do not involve rank 0).
        dumps = fixture_dumps("skip")
        moved = json.loads(json.dumps(dumps))
        extra = json.loads(json.dumps(moved[1]["entries"][-1]))
        extra["record_id"] += 1
        extra["time_created_ns"] += 1000
        moved[1]["entries"].append(extra)

        def read(n, ranks):
            return page([(503, "read %d" % n)] + [(200, d) for d in ranks[1:]])
        pages = [read(1, dumps), read(2, dumps), read(3, moved), read(4, moved)]
        ep = ("collective_stuck", [6], "the ep group 1 [4, 5, 6, 7] is stuck at seq 2 (all_reduce): rank 6 never "
              "entered it; ranks 4, 5, 7 entered it; rank 6 last recorded default_pg seq 3 (all_reduce)" + STALLED)
        expected = [False, True, False, True]
        gate = threading.Semaphore(0)
        with FakeTorchDebug(pages, gate=gate) as fake, Serve("--torch-debug", "127.0.0.1:%d" % fake.port,
                                                             "--torch-debug-job", "fr", "--torch-debug-interval",
                                                             "0.05", "--dp", "8", "--ep", "4") as serve:
            for n, shown in enumerate(expected, 1):
                gate.release()
                marker = "status 503: read %d" % n
                found = serve.wait_for("read %d in job fr" % n, lambda: (lambda f: any(
                    x["message"].endswith(marker) for x in f) and f)(serve.findings("fr")))
                with self.subTest(read=n):
                    stuck = [(f["kind"], f["ranks"], f["message"]) for f in found if f["kind"] == "collective_stuck"
                             and f["ranks"] == [6]]
                    self.assertEqual(stuck, [ep] if shown else [])
            self.assertEqual(set(fake.paths), {PATH})
            serve.stop()

    def test_the_page_is_read_by_its_json_not_by_its_markup(self):
        # A thread name that holds "</pre>" and a heading cannot cut rank 0's dump short (its JSON is read to its
        # end); and a front end with jinja2's autoescaping on writes its quotes as &#34;: read all the same. The skip
        # fixture's hang shows at the second read, in the same words as from torch's own page.
        dumps = fixture_dumps("skip")
        dumps[0]["entries"][0]["thread_name"] = "</pre>\n        <h2>Rank 9: http://x:1/</h2>\n <pre>{"
        ep = ("collective_stuck", [6], "the ep group 1 [4, 5, 6, 7] is stuck at seq 2 (all_reduce): rank 6 never "
              "entered it; ranks 4, 5, 7 entered it; rank 6 last recorded default_pg seq 3 (all_reduce)" + STALLED)
        for escape in (False, True):
            with self.subTest(escape=escape), FakeTorchDebug([page([(200, d) for d in dumps], escape=escape)]) as fake:
                with Serve("--torch-debug", "127.0.0.1:%d" % fake.port, "--torch-debug-job", "fr",
                           "--torch-debug-interval", "0.1", "--dp", "8", "--ep", "4") as serve:
                    serve.wait_for("the hang", lambda: ep in [(f["kind"], f["ranks"], f["message"])
                                                             for f in serve.findings("fr")])
                    self.assertEqual(serve.get("/api/v1/jobs/fr")["ranks_seen"], 8)
                    # The fix names where to look: the host of rank 6's worker as the page gives it (no pid: torch's
                    # dumps hold none).
                    verdicts = [f for f in serve.findings("fr") if f["kind"] == "verdict"]
                    self.assertEqual([v["ranks"] for v in verdicts], [[6]])
                    self.assertIn("py-spy dump --pid on node0: no record gives rank 6's pid", verdicts[0]["fix"])
                    self.assertEqual([f for f in serve.findings("fr") if f["kind"] == "peer_unreachable"], [])

    def test_a_rank_the_front_end_could_not_fetch_is_a_finding(self):
        # Rank 6's worker refused the front end (503, the reason as requests words it); the other dumps are the skip
        # fixture's: the diagnosis goes on without rank 6 and names it.
        dumps = fixture_dumps("skip")
        ranks = [(200, d) for d in dumps]
        ranks[6] = (503, "ConnectionError: HTTPConnectionPool(host='node1', port=41006): Max retries exceeded")
        ranks[7] = (200, "not json")
        with FakeTorchDebug([page(ranks)]) as fake, Serve("--torch-debug", "127.0.0.1:%d" % fake.port,
                                                          "--torch-debug-job", "fr", "--torch-debug-interval", "0.2",
                                                          "--dp", "8", "--ep", "4") as serve:
            where = "127.0.0.1:%d" % fake.port
            findings = serve.wait_for("the unread ranks", lambda: (lambda f: len([
                x for x in f if x["kind"] == "peer_unreachable"]) == 2 and f)(serve.findings("fr")))
            unread = [(f["ranks"], f["message"], f["sources"]) for f in findings if f["kind"] == "peer_unreachable"]
            self.assertEqual(unread[0], ([6], "rank 6's Flight Recorder did not reach torch's debug server at %s: "
                                         "status 503: ConnectionError: HTTPConnectionPool(host='node1', port=41006): "
                                         "Max retries exceeded" % where, [where]))
            self.assertEqual(unread[1][0], [7])
            self.assertTrue(unread[1][1].startswith("rank 7's Flight Recorder did not reach torch's debug server at "
                                                    "%s: its Flight Recorder JSON cannot be read: " % where), unread)
            self.assertEqual(serve.get("/api/v1/jobs/fr/ranks/6")["host"], "node0")
            serve.stop()

    def test_an_unreadable_front_end_is_a_finding_and_the_collector_answers(self):
        port = closed_port()
        what = "GET " + PATH
        body = page([(200, {"version": "2.10", "entries": []})])
        cases = [
            (None, None, "cannot connect to 127.0.0.1:{}: Connection refused"),
            ("silent", None, "127.0.0.1:{}: no answer to %s within 0.5 s" % what),
            (404, None, '127.0.0.1:{} answered HTTP 404 to %s: "Handler not found: /fr_trace_json"' % what),
            (500, None, '127.0.0.1:{} answered HTTP 500 to %s: "Handler not found: /fr_trace_json"' % what),
            ("not_http", None, '127.0.0.1:{} is not an HTTP server: it answered "CLIENT PROTOCOL 2" to %s' % what),
            ("cut", None, "127.0.0.1:{} closed the connection mid-reply (after %d of %d bytes of %s)"
             % (len(body) // 2, len(body), what)),
            ("page", b"<html>Hi</html>",
             "127.0.0.1:{}: the answer to %s is not torch's debug-server page (no \"Rank N:\" section)" % what),
            ("big", None, "127.0.0.1:{}: the answer to %s is larger than 1024 bytes; stopped reading" % what),
        ]
        for misbehave, pages, reason in cases:
            with self.subTest(misbehave):
                fake = None
                if misbehave is not None:
                    served = pages or (body * 4 if misbehave == "big" else body)
                    fake = FakeTorchDebug([served], misbehave=None if misbehave in ("page", "big") else misbehave)
                where = "127.0.0.1:%d" % (fake.port if fake else port)
                # a short limit only where the limit is what is tested: a loaded machine may be slow to answer
                args = ["--torch-debug", where, "--torch-debug-interval", "0.2", "--torch-debug-timeout",
                        "0.5" if misbehave == "silent" else "30"]
                if misbehave == "big":
                    args += ["--torch-debug-max-reply", "1024"]
                try:
                    with Serve(*args) as serve:
                        job = "torch@" + where
                        self.assertEqual(serve.started["torch_debug"], [{"address": where, "job": job}])
                        self.assertEqual(serve.get("/api/v1/health"), {"status": "ok"})
                        expected = unreadable(where, reason.format(where.split(":")[1]))
                        serve.wait_for("the finding", lambda: summary(serve.findings(job)) == expected)
                finally:
                    if fake:
                        fake.close()

    def test_stopping_the_collector_ends_a_read_at_once(self):
        # A page that never comes, with a --torch-debug-timeout of a minute: the collector still stops at once, and
        # tells the job nothing of it.
        with FakeTorchDebug([b""], misbehave="silent") as fake:
            serve = Serve("--torch-debug", "127.0.0.1:%d" % fake.port, "--torch-debug-timeout", "60")
            serve.wait_for("a read waiting for its page", lambda: fake.paths == [PATH])
            started = time.monotonic()
            err = serve.stop()
            self.assertLess(time.monotonic() - started, 10)
            self.assertEqual(err, "")

    def test_default_job_names(self):
        # "torch@" + the address, a character a job name cannot hold as "-"; each --torch-debug-job names its
        # --torch-debug in order.
        with Serve("--torch-debug", "127.0.0.1:25999", "--torch-debug", "[::1]:25999", "--torch-debug-job", "first",
                   "--torch-debug-interval", "60") as serve:
            self.assertEqual(serve.started["torch_debug"], [{"address": "127.0.0.1:25999", "job": "first"},
                                                            {"address": "[::1]:25999", "job": "torch@-::1-:25999"}])
        # a --ras and a --torch-debug side by side, each into its job
        with Serve("--torch-debug", "localhost", "--ras", "127.0.0.1:1", "--torch-debug-interval", "60",
                   "--ras-interval", "60") as serve:
            self.assertEqual(serve.started["torch_debug"], [{"address": "localhost", "job": "torch@localhost"}])
            self.assertEqual(serve.started["ras"], [{"address": "127.0.0.1:1", "job": "ras@127.0.0.1:1"}])

    def test_bad_flags(self):
        hint = ("hint: meshscope serve --torch-debug HOST[:PORT] [--torch-debug-job NAME] [--torch-debug-interval S] "
                "[--torch-debug-timeout S] [--torch-debug-backend NAME] [--torch-debug-max-reply BYTES] "
                "[--plan FILE | --dp D [--cp C] [--ep E]]\n")
        usage = "\nRun 'meshscope serve --help' for usage.\n"
        for args, message in [
            (["--torch-debug", "h:0"], '--torch-debug "h:0": the port must be 1-65535\n' + hint),
            (["--torch-debug", ":1"], '--torch-debug ":1": no host\n' + hint),
            (["--torch-debug", "h:1", "--torch-debug-job", "a", "--torch-debug-job", "b"],
             "2 --torch-debug-job for 1 --torch-debug: give one job name per --torch-debug at most\n" + hint),
            (["--torch-debug", "h:1", "--torch-debug-job", "a b"],
             "--torch-debug-job must be 1 to 128 characters of A-Z, a-z, 0-9 and ._-:@+=, got 'a b'\n" + hint),
            (["--torch-debug", "h:1", "--torch-debug", "h:1"],
             "two sources put their records into job 'torch@h:1': give each --torch-debug its --torch-debug-job\n"
             + hint),
            (["--torch-debug", "h:1", "--ras", "h:2", "--ras-job", "j", "--torch-debug-job", "j"],
             "two sources put their records into job 'j': give each --torch-debug its --torch-debug-job\n" + hint),
            (["--torch-debug", "h:1", "--torch-debug-interval", "0"],
             "--torch-debug-interval must be from 0.05 to 86400 seconds\n" + hint),
            (["--torch-debug", "h:1", "--torch-debug-timeout", "1e9"],
             "--torch-debug-timeout must be from 0.05 to 86400 seconds\n" + hint),
            (["--torch-debug", "h:1", "--torch-debug-backend", "gloo&x=1"],
             "--torch-debug-backend must be 1 to 32 characters of A-Z, a-z, 0-9 and _ (gloo, nccl, ...), got "
             "'gloo&x=1'\n" + hint),
            (["--torch-debug", "h:1", "--torch-debug-max-reply", "10"],
             "--torch-debug-max-reply must be from 1024 to 4294967296 bytes\n" + hint),
            (["--torch-debug-interval", "1"], "--torch-debug-interval requires --torch-debug" + usage),
            (["--dp", "8"], "--dp requires --ras or --torch-debug" + usage),
            (["--plan", "p.json"], "--plan requires --ras or --torch-debug" + usage),
        ]:
            with self.subTest(args=args):
                run = subprocess.run([BIN, "serve", "--listen", "127.0.0.1:0", *args], capture_output=True,
                                     text=True, timeout=30)
                self.assertEqual((run.returncode, run.stdout), (2, ""))
                self.assertEqual(run.stderr, "meshscope serve: " + message)


if __name__ == "__main__":
    unittest.main()
