"""meshscope serve --ras against a fake NCCL RAS server on loopback (fake_ras_server.py, the protocol of NCCL's
src/ras sources): the collector itself reads the job's RAS every interval and shows its diagnosis as a job through
the HTTP API, as `meshscope import` would put it there (hook-free live mode); a RAS that cannot be read is one
finding of the job, with the client's exact reason, while the collector keeps answering; and each bad flag's
message. The expected findings are the fixture's faults (tests/records/fixtures/ras/README.md) in the words
tst_diagnose holds for them. Every wait is for a condition, bounded by a deadline.
"""

import json
import os
import subprocess
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request

from fake_ras_server import FakeRas
from test_ras_cli import STATUS_JSON, STATUSES, closed_port, run

BIN = os.environ.get("MESHSCOPE_BIN", "meshscope")

FIX = ("check that the job is running (NCCL 2.24 or later, NCCL_RAS_ENABLE not 0) and that --ras names its "
       "NCCL_RAS_ADDR (localhost:28028 by default) as seen from the collector")


class Serve:
    """meshscope serve on a free loopback port with a fresh database; its first stdout line read."""

    def __init__(self, *args):
        self.dir = tempfile.TemporaryDirectory()
        self.process = subprocess.Popen([BIN, "serve", "--listen", "127.0.0.1:0", "--db",
                                         os.path.join(self.dir.name, "h.db"), *args],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.started = json.loads(self.process.stdout.readline())
        self.url = "http://127.0.0.1:%d" % self.started["port"]

    def get(self, path):
        with urllib.request.urlopen(self.url + path, timeout=10) as reply:
            return json.loads(reply.read())

    def findings(self, job):
        """The job's findings; none while the job does not exist yet (404)."""
        try:
            return self.get("/api/v1/jobs/%s/findings" % job)["findings"]
        except urllib.error.HTTPError as e:
            if e.code != 404:
                raise
            return []

    def wait_for(self, what, condition, limit=30):
        """Returns condition()'s first true value, asked every 50 ms for `limit` seconds."""
        deadline = time.monotonic() + limit
        while True:
            value = condition()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError("not within %d s: %s" % (limit, what))
            time.sleep(0.05)

    def stop(self):
        """SIGTERM; returns its stderr."""
        self.process.terminate()
        _, err = self.process.communicate(timeout=30)
        self.dir.cleanup()
        return err

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.process.poll() is None:
            self.stop()


def status_with(ep_counts, dead_pid):
    """The committed status (STATUS_JSON) with the ep group 1 communicator's AllReduce counts (comm ranks 0, 1, 3:
    global ranks 4, 5, 7) and the pid of the missing rank 6 in every communicator."""
    status = json.loads(STATUS_JSON)
    for comm in status["communicators"]:
        for missing in comm["missing_ranks"]:
            missing["pid"] = dead_pid
        if comm["hash"] == "0x2b1d5e7f9a3c4e60":
            for rank, count in zip(comm["ranks"], ep_counts):
                rank["collective_counts"]["AllReduce"] = count
    return json.dumps(status, indent=2).encode() + b"\n"


def alive_status():
    """The committed status with rank 6 (node1 pid 41006) alive: a rank of each of its communicators, counting as
    rank 5 does, where RAS has it missing."""
    status = json.loads(STATUS_JSON)
    for comm in status["communicators"]:
        for missing in comm.pop("missing_ranks"):
            rank = json.loads(json.dumps(comm["ranks"][-1]))
            rank.update({"rank": missing["rank"], "host": "node1", "pid": 41006, "cuda_dev": 2, "nvml_dev": 2})
            rank["status"]["init_state"] = 0
            if comm["size"] == 4:
                rank["collective_counts"]["AllReduce"] = 57
            comm["ranks"].append(rank)
        comm["ranks"].sort(key=lambda r: r["rank"])
        comm["missing_ranks"] = []
        comm["missing_ranks_count"] = 0
        comm["ranks_count"] = comm["size"]
    return json.dumps(status, indent=2).encode() + b"\n"


# RAS's PEER_DEAD event in its JSON form (rasClientsNotifyEvent), as tests/cli/test_ras_cli.py has it.
PEER_DEAD = (b'{\n  "timestamp": "2026-12-03 14:06:11",\n  "group": "LIFECYCLE",\n  "event": "PEER_DEAD",\n'
             b'  "peer": {\n    "addr": "10.1.0.2:45011"\n  },\n  "details": ""\n}\n')


def summary(findings):
    return [(f["id"], f["kind"], f["ranks"], f["message"], f.get("sources")) for f in findings]


def unreadable(where, reason):
    return [("records/1", "peer_unreachable", [], "the collector cannot read NCCL RAS at %s: %s" % (where, reason),
             [where])]


class ServeRasTest(unittest.TestCase):
    def test_the_job_shows_each_poll_of_ras(self):
        with FakeRas(STATUSES) as ras, Serve("--ras", "127.0.0.1:%d" % ras.port, "--ras-job", "live",
                                             "--ras-interval", "0.2", "--dp", "8", "--ep", "4") as serve:
            where = "127.0.0.1:%d" % ras.port
            self.assertEqual(serve.started["ras"], [{"address": where, "job": "live"}])
            # The same status at every poll: from the second on, the ep group's counts stalled (the stall rule).
            findings = serve.wait_for("the RAS diagnosis of two polls in job live",
                                      lambda: (lambda f: len(f) == 4 and f)(serve.findings("live")))
            self.assertEqual(summary(findings), [
                ("records/1", "verdict", [6], findings[0]["message"], [where]),
                ("records/2", "communicator_not_formed", [2],
                 "the efsdp group 2 [2, 6] communicator never formed: rank 2 is still in init (NCCL RAS)", [where]),
                ("records/3", "collective_stuck", [7],
                 "the ep group 1 [4, 5, 6, 7] communicator: rank 7 launched 56 collectives, ranks 4, 5 launched 57; "
                 "rank 7 is behind, and no count changed since the previous poll (NCCL RAS)", [where]),
                ("records/4", "peer_unreachable", [6],
                 findings[3]["message"], [where]),
            ])
            # the dead rank 6 is the root cause: every other finding waits on it
            self.assertTrue(findings[0]["message"].startswith("rank 6 (node1 pid 41006) is dead"), findings[0])
            self.assertIn("py-spy dump --pid 41006 on node1", findings[0]["fix"])
            self.assertTrue(findings[3]["message"].startswith("rank 6 (node1 pid 41006) is dead"), findings[3])
            # Polled again and again, each time as ncclras asks; beside the polls, a MONITOR connection (this
            # server closes it after its events, so it is opened again each interval).
            status = ["CLIENT PROTOCOL 2", "SET FORMAT json", "VERBOSE STATUS"]
            serve.wait_for("three polls", lambda: ras.connections.count(status) >= 3)
            monitor = status[:2] + ["MONITOR"]
            self.assertIn(monitor, ras.connections)
            # each connection one of the two exchanges, or the start of one (a poll under way)
            self.assertEqual([c for c in list(ras.connections) if c not in (status[:len(c)], monitor[:len(c)])], [])
            # No hook ran: the world is the plan's, every rank named by RAS, none of them in a state the hook tells.
            job = serve.get("/api/v1/jobs/live")
            self.assertEqual((job["world_size"], job["ranks_seen"], job["events"]), (8, 8, 0))
            self.assertEqual(job["states"], {"pending": 8, "initializing": 0, "ready": 0, "failed": 0, "stale": 0,
                                             "exited": 0})
            self.assertEqual(serve.get("/api/v1/jobs/live/ranks/6")["host"], "node1")

            # The job ends: its RAS no longer answers, and the job says so in place of the last diagnosis.
            ras.close()
            reason = "cannot connect to %s: Connection refused" % where
            serve.wait_for("the unreachable finding", lambda: summary(serve.findings("live")) == unreadable(where,
                                                                                                             reason))
            self.assertEqual(serve.findings("live")[0]["fix"], FIX)
            job = serve.get("/api/v1/jobs/live")
            self.assertEqual((job["world_size"], job["ranks_seen"], job["states"]["pending"]), (8, 8, 8))
            err = serve.stop()
        # Told once per change: the last, the refusal that stays. A poll (or the MONITOR connection) caught in the
        # middle of the server's closing may have been told something else just before.
        told = 'meshscope serve: cannot read NCCL RAS at %s for job "live": ' % where
        self.assertEqual(err.splitlines()[-1], told + reason)
        self.assertEqual([line for line in err.splitlines() if not line.startswith(told)], [])

    def test_a_stalled_communicator_is_a_finding_and_a_moving_one_is_not(self):
        # One status per poll, released one at a time: the ep group 1's AllReduce counts (global ranks 4, 5, 7;
        # rank 6 is missing) and, to tell the polls apart, the pid RAS gives the dead rank 6.
        polls = [((57, 57, 56), 50001), ((60, 60, 59), 50002), ((60, 60, 59), 50003), ((60, 60, 59), 50004),
                 ((61, 61, 61), 50005)]
        stalled = ("collective_stuck", [7], "the ep group 1 [4, 5, 6, 7] communicator: rank 7 launched 59 "
                   "collectives, ranks 4, 5 launched 60; rank 7 is behind, and no count changed since the previous "
                   "poll (NCCL RAS)")
        # What the job shows after each poll, worked by hand: behind at the first poll, moved at the second, the
        # same counts at the third and fourth, in step at the fifth.
        expected_stuck = [None, None, stalled, stalled, None]
        gate = threading.Semaphore(0)
        statuses = {"json": [status_with(counts, pid) for counts, pid in polls], "text": [b""]}
        with FakeRas(statuses, gate=gate) as ras, Serve("--ras", "127.0.0.1:%d" % ras.port, "--ras-job", "live",
                                                        "--ras-interval", "0.05", "--ras-timeout", "60", "--dp", "8",
                                                        "--ep", "4") as serve:
            for n, ((_, pid), stuck) in enumerate(zip(polls, expected_stuck), 1):
                gate.release()
                dead = "rank 6 (node1 pid %d) is dead" % pid
                findings = serve.wait_for("poll %d in job live" % n, lambda: (lambda f: any(
                    x["message"].startswith(dead) for x in f) and f)(serve.findings("live")))
                with self.subTest(poll=n):
                    self.assertEqual([(f["kind"], f["ranks"], f["message"]) for f in findings
                                      if f["kind"] == "collective_stuck"], [stuck] if stuck else [])
                    self.assertEqual([f["kind"] for f in findings if f["kind"] != "collective_stuck"],
                                     ["verdict", "communicator_not_formed", "peer_unreachable"])
            ras.close()  # the poll waiting at the gate ends now
            serve.stop()

    def test_a_monitor_event_polls_at_once(self):
        # Rank 6 alive at the first poll, dead at the next; the interval is an hour: only RAS's PEER_DEAD event,
        # on the MONITOR connection the collector keeps open, can have the job read RAS again.
        statuses = {"json": [alive_status(), STATUS_JSON], "text": [b""]}
        with FakeRas(statuses, hold_monitor=True) as ras, Serve("--ras", "127.0.0.1:%d" % ras.port, "--ras-job",
                                                                "live", "--ras-interval", "3600", "--dp", "8",
                                                                "--ep", "4") as serve:
            findings = serve.wait_for("the first poll", lambda: serve.findings("live"))
            self.assertEqual([(f["kind"], f["ranks"]) for f in findings], [("communicator_not_formed", [2])])
            serve.wait_for("the MONITOR connection", lambda: len(ras.monitors) == 1)
            self.assertEqual(ras.push_event({"json": PEER_DEAD, "text": b""}), 1)
            findings = serve.wait_for("the poll after PEER_DEAD", lambda: (lambda f: len(f) == 3 and f)(
                serve.findings("live")))
            self.assertEqual([(f["kind"], f["ranks"], f["message"]) for f in findings], [
                ("verdict", [6], findings[0]["message"]),
                ("communicator_not_formed", [2], "the efsdp group 2 [2, 6] communicator never formed: rank 2 is "
                 "still in init (NCCL RAS)"),
                ("peer_unreachable", [6], "rank 6 (node1 pid 41006) is dead (NCCL RAS could not reach it for 60 s "
                 "or more)")])
            self.assertEqual(sorted(ras.connections), sorted([["CLIENT PROTOCOL 2", "SET FORMAT json", "MONITOR"]] +
                                                             [["CLIENT PROTOCOL 2", "SET FORMAT json",
                                                               "VERBOSE STATUS"]] * 2))
            self.assertEqual(serve.stop(), "")

    def test_stopping_the_collector_ends_its_ras_waits_at_once(self):
        # A status that never comes (the gate stays shut) and a MONITOR connection with no event: with a
        # --ras-timeout of a minute, the collector still stops at once, and tells the job nothing of it.
        with FakeRas(STATUSES, gate=threading.Semaphore(0), hold_monitor=True) as ras:
            serve = Serve("--ras", "127.0.0.1:%d" % ras.port, "--ras-timeout", "60")
            serve.wait_for("a poll waiting for its status and the MONITOR connection", lambda: len(ras.monitors) == 1
                           and ["CLIENT PROTOCOL 2", "SET FORMAT json", "VERBOSE STATUS"] in ras.connections)
            started = time.monotonic()
            err = serve.stop()
            self.assertLess(time.monotonic() - started, 10)
            self.assertEqual(err, "")

    def test_a_ras_without_monitor_is_polled(self):
        with FakeRas(STATUSES, json_format=False, monitor=False) as ras:
            where = "127.0.0.1:%d" % ras.port
            with Serve("--ras", where, "--ras-job", "old", "--ras-interval", "0.2", "--dp", "8", "--ep", "4") as serve:
                serve.wait_for("the polls' findings", lambda: len(serve.findings("old")) == 4)
                err = serve.stop()
        self.assertEqual(err, 'meshscope serve: %s refused MONITOR (NCCL 2.29 and later have it): "ERROR: Unknown '
                              'command MONITOR"; job "old" follows its polls only\n' % where)

    def test_an_unreadable_ras_is_a_finding_and_the_collector_answers(self):
        port = closed_port()
        cases = [
            (None, "cannot connect to 127.0.0.1:{}: Connection refused"),
            ("silent", "127.0.0.1:{}: no answer to CLIENT PROTOCOL 2 within 0.5 s"),
            ("silent_status", "127.0.0.1:{}: no answer to VERBOSE STATUS within 0.5 s"),
            ("hangup", "127.0.0.1:{} closed the connection before answering CLIENT PROTOCOL 2"),
            ("http", '127.0.0.1:{} is not an NCCL RAS server: it answered "HTTP/1.0 400 Bad Request" to '
                     "CLIENT PROTOCOL 2"),
            ("close_mid_reply", "127.0.0.1:{} closed the connection mid-reply (after %d bytes of JSON status)"
             % (len(STATUS_JSON) // 2)),
            ("garbage_status", "127.0.0.1:{} at byte 0: not valid JSON"),
        ]
        for misbehave, reason in cases:
            with self.subTest(misbehave):
                server = FakeRas(STATUSES, misbehave=misbehave) if misbehave else None
                where = "127.0.0.1:%d" % (server.port if server else port)
                # a short limit only where the limit is what is tested: a loaded machine may be slow to answer
                limit = "0.5" if misbehave and misbehave.startswith("silent") else "30"
                try:
                    with Serve("--ras", where, "--ras-interval", "0.2", "--ras-timeout", limit) as serve:
                        job = "ras@" + where
                        self.assertEqual(serve.started["ras"], [{"address": where, "job": job}])
                        # The collector answers while its RAS thread waits on a silent server.
                        self.assertEqual(serve.get("/api/v1/jobs")["jobs"] is not None, True)
                        expected = unreadable(where, reason.format(where.split(":")[1]))
                        serve.wait_for("the finding", lambda: summary(serve.findings(job)) == expected)
                        self.assertEqual(serve.get("/api/v1/jobs/" + job)["world_size"], 0)
                finally:
                    if server:
                        server.close()

    def test_default_job_names(self):
        # "ras@" + the address, a character a job name cannot hold as "-"; each --ras-job names its --ras in order.
        with Serve("--ras", "[::1]:28028", "--ras", "localhost", "--ras", "127.0.0.2:1", "--ras-job", "first",
                   "--ras-interval", "60") as serve:
            self.assertEqual(serve.started["ras"], [{"address": "[::1]:28028", "job": "first"},
                                                    {"address": "localhost", "job": "ras@localhost"},
                                                    {"address": "127.0.0.2:1", "job": "ras@127.0.0.2:1"}])
        with Serve("--ras", "[::1]:28028", "--ras-interval", "60") as serve:
            self.assertEqual(serve.started["ras"], [{"address": "[::1]:28028", "job": "ras@-::1-:28028"}])

    def test_bad_flags(self):
        hint = ("hint: meshscope serve --ras HOST[:PORT] [--ras-job NAME] [--ras-interval S] [--ras-timeout S] "
                "[--plan FILE | --dp D [--cp C] [--ep E]]\n")
        for args, message in [
            (["--ras", "h:0"], '--ras "h:0": the port must be 1-65535\n' + hint),
            (["--ras", "h:1", "--ras-job", "a", "--ras-job", "b"],
             "2 --ras-job for 1 --ras: give one job name per --ras at most\n" + hint),
            (["--ras", "h:1", "--ras-job", "a b"],
             "--ras-job must be 1 to 128 characters of A-Z, a-z, 0-9 and ._-:@+=, got 'a b'\n" + hint),
            (["--ras", "h:1", "--ras", "h:1"], "two --ras put their status into job 'ras@h:1': give each its "
                                               "--ras-job\n" + hint),
            (["--ras", "h:1", "--ras-interval", "0"], "--ras-interval must be from 0.05 to 86400 seconds\n" + hint),
            (["--ras", "h:1", "--ras-timeout", "1e9"], "--ras-timeout must be from 0.05 to 86400 seconds\n" + hint),
            (["--ras-interval", "1"], "--ras-interval requires --ras\nRun 'meshscope serve --help' for usage.\n"),
            (["--dp", "8"], "--dp requires --ras or --torch-debug\nRun 'meshscope serve --help' for usage.\n"),
        ]:
            with self.subTest(args=args):
                code, out, err, _ = run("serve", "--listen", "127.0.0.1:0", *args)
                self.assertEqual((code, out), (2, ""))
                self.assertEqual(err, "meshscope serve: " + message)


if __name__ == "__main__":
    unittest.main()
