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
            findings = serve.wait_for("the RAS diagnosis in job live", lambda: serve.findings("live"))
            self.assertEqual(summary(findings), [
                ("records/1", "communicator_not_formed", [2],
                 "the efsdp group 2 [2, 6] communicator never formed: rank 2 is still in init (NCCL RAS)", [where]),
                ("records/2", "collective_stuck", [7],
                 "the ep group 1 [4, 5, 6, 7] communicator: rank 7 launched 56 collectives, ranks 4, 5 launched 57; "
                 "rank 7 is behind (NCCL RAS)", [where]),
                ("records/3", "peer_unreachable", [6],
                 findings[2]["message"], [where]),
            ])
            self.assertTrue(findings[2]["message"].startswith("rank 6 (node1 pid 41006) is dead"), findings[2])
            # Polled again and again, each time as ncclras asks.
            serve.wait_for("three polls", lambda: len(ras.commands) >= 9)
            self.assertEqual(ras.commands[:6], ["CLIENT PROTOCOL 2", "SET FORMAT json", "VERBOSE STATUS"] * 2)
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
        self.assertEqual(err, 'meshscope serve: cannot read NCCL RAS at %s for job "live": %s\n' % (where, reason))

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
            (["--dp", "8"], "--dp requires --ras\nRun 'meshscope serve --help' for usage.\n"),
        ]:
            with self.subTest(args=args):
                code, out, err, _ = run("serve", "--listen", "127.0.0.1:0", *args)
                self.assertEqual((code, out), (2, ""))
                self.assertEqual(err, "meshscope serve: " + message)


if __name__ == "__main__":
    unittest.main()
