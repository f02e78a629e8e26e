"""meshscope ras against a fake NCCL RAS server on loopback (fake_ras_server.py, the protocol of NCCL's
src/ras sources): the status read as JSON and, from a server older than 2.28.7, as text, diagnosed with the same
findings as `meshscope diagnose`; polling that names a stalled communicator; monitor events; and every failure
(refused, silent, cut short, oversize, not RAS) as one line naming host:port with exit status 1. Each run is a
real process bounded by a timeout; nothing sleeps to wait.
"""

import json
import os
import socket
import subprocess
import time
import unittest

from fake_ras_server import FakeRas

BIN = os.environ.get("MESHSCOPE_BIN", "meshscope")
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "records", "fixtures", "ras")


def fixture(name):
    with open(os.path.join(FIXTURES, name), "rb") as f:
        return f.read()


STATUS_JSON = fixture("status.json")
STATUS_TEXT = fixture("status.txt")
STATUSES = {"json": [STATUS_JSON], "text": [STATUS_TEXT]}


def run(*args, timeout=60):
    started = time.monotonic()
    p = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr, time.monotonic() - started


def closed_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now
    return port


# The ep group's counts moved on: rank 7 (comm rank 3) caught up to 57, ranks 4 and 5 went to 58.
def advanced(status):
    doc = json.loads(status)
    for r in doc["communicators"][1]["ranks"]:
        r["collective_counts"]["AllReduce"] += 1
    return json.dumps(doc, indent=2).encode() + b"\n"


class RasCliTest(unittest.TestCase):
    def test_json_status_diagnosed_like_a_saved_one(self):
        with FakeRas(STATUSES) as server:
            where = "127.0.0.1:%d" % server.port
            code, out, err, _ = run("ras", where, "--dp", "8", "--ep", "4")
            self.assertEqual(server.commands, ["CLIENT PROTOCOL 2", "SET FORMAT json", "VERBOSE STATUS"])
        self.assertEqual(err, "")
        self.assertEqual(code, 0)
        first, report = out.split("\n", 1)
        self.assertEqual(first, "NCCL RAS at %s: NCCL 2.28.9, JSON status, 3 communicators" % where)
        # The same report as meshscope diagnose of the same status saved to a file, but for the source's name.
        path = os.path.join(FIXTURES, "status.json")
        code, saved, _, _ = run("diagnose", path, "--dp", "8", "--ep", "4")
        self.assertEqual(code, 0)
        self.assertEqual(report, saved.replace(path, where))
        self.assertIn("  collective_stuck: the ep group 1 [4, 5, 6, 7] communicator: rank 7 launched 56 collectives, "
                      "ranks 4, 5 launched 57; rank 7 is behind (NCCL RAS)\n", report)

    def test_text_status_from_a_server_before_2_28_7(self):
        with FakeRas(STATUSES, json_format=False, monitor=False) as server:
            where = "127.0.0.1:%d" % server.port
            code, out, err, _ = run("ras", where, "--dp", "8", "--ep", "4")
            self.assertEqual(server.commands, ["CLIENT PROTOCOL 2", "SET FORMAT json", "VERBOSE STATUS"])
        self.assertEqual((code, err), (0, ""))
        self.assertTrue(out.startswith("NCCL RAS at %s: NCCL 2.27.7, text status, 3 communicators named\n" % where),
                        out)
        self.assertIn("  collective_stuck: the ep group 1 [4, 5, 6, 7] communicator: rank 7 launched 56 AllReduce, "
                      "2 unnamed ranks launched 57; rank 7 is behind (NCCL RAS)\n", out)
        self.assertIn("  peer_unreachable: rank 6 (10.1.0.2 pid 41006) is dead (NCCL RAS could not reach it for 60 s "
                      "or more)\n", out)

    def test_json_format_output(self):
        with FakeRas(STATUSES) as server:
            where = "127.0.0.1:%d" % server.port
            code, out, err, _ = run("ras", where, "--dp", "8", "--ep", "4", "--format", "json")
        self.assertEqual((code, err), (0, ""))
        doc = json.loads(out)
        self.assertEqual(doc["source"], where)
        self.assertEqual(doc["status_format"], "json")
        self.assertEqual(doc["diagnosis"]["schema"], "meshscope.diagnosis/1")
        kinds = sorted(f["kind"] for f in doc["diagnosis"]["findings"])
        self.assertEqual(kinds, ["collective_stuck", "communicator_not_formed", "peer_unreachable", "verdict"])
        self.assertEqual(doc["diagnosis"]["verdict"]["ranks"], [6])  # the dead rank, on which the others wait

    def test_interval_names_a_stalled_communicator(self):
        # Poll 1: the ep group mismatched; poll 2: its counts moved (not stalled); poll 3: the same as poll 2.
        moved = advanced(STATUS_JSON)
        with FakeRas({"json": [STATUS_JSON, moved, moved], "text": [STATUS_TEXT]}) as server:
            where = "127.0.0.1:%d" % server.port
            code, out, err, _ = run("ras", where, "--dp", "8", "--ep", "4", "--interval", "0.01", "--polls", "3")
            self.assertEqual(server.commands.count("VERBOSE STATUS"), 3)
        self.assertEqual((code, err), (0, ""))
        polls = out.split("NCCL RAS at %s: " % where)[1:]
        self.assertEqual(len(polls), 3)
        self.assertTrue(polls[2].startswith("NCCL 2.28.9, JSON status, 3 communicators (poll 3)\n"), polls[2])
        self.assertNotIn("stalled", polls[0])
        self.assertNotIn("stalled", polls[1])
        self.assertTrue(polls[2].endswith(
            "\nstalled (1):\n  the ep group 1 [4, 5, 6, 7] communicator (commId 0x2b1d5e7f9a3c4e60): its ranks' "
            "operation counts differ and did not change over 2 polls (NCCL RAS)\n"), polls[2])

    def test_monitor_prints_events_as_they_come(self):
        events = [
            b'{\n  "timestamp": "2026-12-03 14:05:09",\n  "group": "LIFECYCLE",\n  "event": "PEER_NEW",\n'
            b'  "peer": {\n    "host": "10.1.0.2",\n    "pid": 41006,\n    "cuda_devs": [2],\n'
            b'    "nvml_devs": [2]\n  },\n  "details": ""\n}\n',
            b'{\n  "timestamp": "2026-12-03 14:06:11",\n  "group": "LIFECYCLE",\n  "event": "PEER_DEAD",\n'
            b'  "peer": {\n    "addr": "10.1.0.2:45011"\n  },\n  "details": ""\n}\n',
        ]
        text_events = [b"[2026-12-03 14:05:09] PEER_NEW: Process 41006 on node 10.1.0.2 managing GPU 2 \n"]
        with FakeRas(STATUSES, events={"json": events, "text": text_events}) as server:
            where = "127.0.0.1:%d" % server.port
            code, out, err, _ = run("ras", where, "--monitor")
            self.assertEqual(server.commands, ["CLIENT PROTOCOL 2", "SET FORMAT json", "MONITOR"])
        self.assertEqual(code, 0)
        self.assertEqual(out, "2026-12-03 14:05:09 PEER_NEW: 10.1.0.2 pid 41006 GPU 2\n"
                              "2026-12-03 14:06:11 PEER_DEAD: 10.1.0.2:45011\n")
        self.assertEqual(err, "meshscope ras: %s closed the connection (the job ended?)\n" % where)
        with FakeRas(STATUSES, events={"json": events, "text": text_events}) as server:
            code, out, err, _ = run("ras", "127.0.0.1:%d" % server.port, "--monitor", "--format", "json")
        self.assertEqual(code, 0)
        lines = [json.loads(line) for line in out.splitlines()]
        self.assertEqual([e["event"] for e in lines], ["PEER_NEW", "PEER_DEAD"])

    def test_monitor_on_a_server_without_it(self):
        with FakeRas(STATUSES, json_format=False, monitor=False) as server:
            where = "127.0.0.1:%d" % server.port
            code, out, err, _ = run("ras", where, "--monitor")
        self.assertEqual((code, out), (1, ""))
        self.assertEqual(err, 'meshscope ras: %s refused MONITOR (NCCL 2.29 and later have it): "ERROR: Unknown '
                              'command MONITOR"\n' % where)

    def test_a_newer_protocol_is_named_and_read(self):
        with FakeRas(STATUSES, protocol=3) as server:
            where = "127.0.0.1:%d" % server.port
            code, out, err, _ = run("ras", where)
        self.assertEqual(code, 0)
        self.assertEqual(err, "meshscope ras: %s speaks RAS protocol 3, this client 2; continuing\n" % where)
        self.assertTrue(out.startswith("NCCL RAS at %s: NCCL 2.28.9" % where), out)

    def test_failures_are_one_line_naming_the_server(self):
        port = closed_port()
        code, out, err, _ = run("ras", "127.0.0.1:%d" % port)
        self.assertEqual((code, out), (1, ""))
        self.assertEqual(err, "meshscope ras: cannot connect to 127.0.0.1:%d: Connection refused\n" % port)
        cases = [
            ("silent", [], "127.0.0.1:{}: no answer to CLIENT PROTOCOL 2 within 1.5 s"),
            ("silent_status", [], "127.0.0.1:{}: no answer to VERBOSE STATUS within 1.5 s"),
            ("hangup", [], "127.0.0.1:{} closed the connection before answering CLIENT PROTOCOL 2"),
            ("http", [], '127.0.0.1:{} is not an NCCL RAS server: it answered "HTTP/1.0 400 Bad Request" to '
                         "CLIENT PROTOCOL 2"),
            ("close_mid_reply", [], "127.0.0.1:{} closed the connection mid-reply (after %d bytes of JSON status)"
             % (len(STATUS_JSON) // 2)),
            ("oversize", ["--max-reply", "65536"],
             "127.0.0.1:{}: the answer to VERBOSE STATUS is larger than 65536 bytes; stopped reading"),
            ("garbage_status", [], "127.0.0.1:{} at byte 0: not valid JSON"),
        ]
        for misbehave, extra, message in cases:
            with self.subTest(misbehave), FakeRas(STATUSES, misbehave=misbehave) as server:
                # a short limit only where the limit is what is tested: a loaded machine may be slow to answer
                limit = "1.5" if misbehave.startswith("silent") else "30"
                code, out, err, _ = run("ras", "127.0.0.1:%d" % server.port, "--timeout", limit, *extra)
                self.assertEqual((code, out), (1, ""))
                self.assertEqual(err, "meshscope ras: " + message.format(server.port) + "\n")
        # The text form cut short: named by the text reader.
        with FakeRas(STATUSES, misbehave="close_mid_reply", json_format=False) as server:
            code, out, err, _ = run("ras", "127.0.0.1:%d" % server.port)
        half = STATUS_TEXT[: len(STATUS_TEXT) // 2]
        lines = half.count(b"\n") + (0 if half.endswith(b"\n") else 1)
        self.assertEqual((code, out), (1, ""))
        self.assertEqual(err, "meshscope ras: 127.0.0.1:%d: ends before its Warnings section (%d lines): the status "
                              "was cut short\n" % (server.port, lines))

    def test_bad_flags(self):
        hint = ("hint: meshscope ras HOST[:PORT] [--plan FILE | --dp D [--cp C] [--ep E]] [--once | --interval S "
                "[--polls N]] [--monitor] [--timeout S] [--format text|json]\n")
        for args, message in [
            ([], "address is required"),
            (["h:0"], '"h:0": the port must be 1-65535'),
            (["h:1", "--timeout", "0"], "--timeout 0: a number of seconds above 0, at most 86400"),
            (["h:1", "--interval", "x"], "--interval x: a number of seconds above 0, at most 86400"),
            (["h:1", "--once", "--interval", "1"], "--once excludes --interval"),
        ]:
            with self.subTest(args=args):
                code, out, err, _ = run("ras", *args)
                self.assertEqual((code, out), (2, ""))
                self.assertEqual(err, "meshscope ras: " + message + "\n" + hint)


if __name__ == "__main__":
    unittest.main()
