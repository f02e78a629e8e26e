"""Unit tests of the reporter core (no torch): settings, identity, the bounded buffer, batching, Retry-After
and jittered backoff, heartbeats, token, bounded memory and exit that never waits for a dead collector.
Runs under any Python >= 3.9."""

import email.utils
import json
import os
import socket
import subprocess
import sys
import threading
import time
import tracemalloc
import unittest
import urllib.request

from support import AUTOATTACH, CLIENT, BlackHole, FakeClock, clean_env, free_port

from fake_collector import FakeCollector
from meshscope_report.config import Config, job_from_env
from meshscope_report.identity import identity_from_env
from meshscope_report.reporter import Reporter
from meshscope_report.wrapping import Probe, original_of, wrap

KNOWN = {"RANK": "3", "WORLD_SIZE": "8", "LOCAL_RANK": "3"}


def make_reporter(url, clock=None, start_thread=False, **settings):
    env = {"MESHSCOPE_URL": url, **KNOWN, **{k: str(v) for k, v in settings.items()}}
    config = Config.from_env(env)
    clock = clock or FakeClock()
    return Reporter(config, identity_from_env(env), clock=clock, monotonic=clock, start_thread=start_thread,
                    warn=lambda message: None), clock


class ConfigTest(unittest.TestCase):
    def test_no_url_means_nothing(self):
        for env in ({}, {"MESHSCOPE_URL": ""}, {"MESHSCOPE_URL": "  "}, {"MESHSCOPE_URL": "ftp://x"}):
            with self.subTest(env=env):
                self.assertIsNone(Config.from_env(env))

    def test_job_precedence(self):
        table = [
            ({"MESHSCOPE_JOB": "mine", "TORCHELASTIC_RUN_ID": "t", "SLURM_JOB_ID": "s"}, "mine"),
            ({"TORCHELASTIC_RUN_ID": "t", "SLURM_JOB_ID": "s"}, "t"),
            ({"TORCHELASTIC_RUN_ID": "none", "SLURM_JOB_ID": "s"}, "s"),
            ({"PMIX_NAMESPACE": "prte-1"}, "prte-1"),
            ({"MASTER_ADDR": "10.0.0.1", "MASTER_PORT": "29500"}, "torch-10.0.0.1-29500"),
            ({}, "default"),
        ]
        for env, expected in table:
            with self.subTest(env=env):
                self.assertEqual(job_from_env(env), expected)

    def test_token_and_limits(self):
        config = Config.from_env({"MESHSCOPE_URL": "http://h:7077/", "MESHSCOPE_TOKEN": "s3cret",
                                  "MESHSCOPE_EXIT_WAIT_S": "30", "MESHSCOPE_MAX_PENDING": "junk"})
        self.assertEqual(config.token, "s3cret")
        self.assertEqual(config.events_url, "http://h:7077/api/v1/events")
        self.assertEqual(config.exit_wait_s, 2.0)  # capped: exit never waits more than 2 s
        self.assertEqual(config.max_pending, 4096)


class IdentityTest(unittest.TestCase):
    def test_launchers(self):
        table = [
            ({"RANK": "5", "WORLD_SIZE": "16", "LOCAL_RANK": "5", "SLURM_PROCID": "1", "SLURM_NTASKS": "2"}, (5, 16, 5)),
            ({"SLURM_PROCID": "9", "SLURM_NTASKS": "16", "SLURM_LOCALID": "1"}, (9, 16, 1)),
            ({"OMPI_COMM_WORLD_RANK": "2", "OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_LOCAL_RANK": "2"}, (2, 4, 2)),
            ({"RANK": "x", "WORLD_SIZE": "4", "SLURM_PROCID": "1", "SLURM_NTASKS": "2"}, (1, 2, None)),
            ({}, (None, None, None)),
        ]
        for env, (rank, world, local) in table:
            with self.subTest(env=env):
                identity = identity_from_env(env)
                self.assertEqual((identity.rank, identity.world_size, identity.local_rank), (rank, world, local))
                self.assertEqual(identity.pid, os.getpid())
                self.assertTrue(identity.host)


class FixedRandom:
    """Jitter pinned to one point of each range: uniform(a, b) = a + (b - a) * u."""

    def __init__(self, u):
        self.u = u

    def uniform(self, low, high):
        return low + (high - low) * self.u


def uneven_group(i):
    """~93 KB of JSON: 16,385 ranks that are not evenly spaced (an evenly spaced group travels as three numbers)."""
    return list(range(i, 16384 * 2, 2)) + [16384 * 3 + i]


def wait_until(predicate, cap_s=30.0, interval_s=0.01):
    """Polls `predicate` until it holds; the cap is only a hang guard, never the thing under test."""
    deadline = time.monotonic() + cap_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval_s)
    return predicate()


class EventBufferTest(unittest.TestCase):
    """The bounded buffer never drops a lifecycle event for room; heartbeats go first."""

    PHASES = {"L": "communicator", "H": "heartbeat", "E": "error", "X": "exit", "R": "ready"}

    def test_what_stays_and_what_is_counted(self):
        from meshscope_report.buffer import EventBuffer

        # (label, max_pending, events added in order, events left in order, heartbeats dropped, over bound)
        table = [
            ("a heartbeat replaces the pending one", 4, "H1 L1 H2", "L1 H2", 1, 0),
            ("full: a lifecycle event evicts the oldest heartbeat", 3, "L1 H1 L2 L3", "L1 L2 L3", 1, 0),
            ("full of lifecycle events: a new heartbeat is dropped", 2, "L1 L2 H1", "L1 L2", 1, 0),
            ("full of lifecycle events: more are kept and counted", 2, "L1 L2 R1 E1 X1", "L1 L2 R1 E1 X1", 0, 3),
            ("error and exit evict a heartbeat like any lifecycle event", 2, "L1 H1 E1 X1", "L1 E1 X1", 1, 1),
            ("below the bound nothing is dropped", 16, "L1 L2 H1 R1", "L1 L2 H1 R1", 0, 0),
        ]
        for label, bound, added, left, dropped, over in table:
            with self.subTest(label):
                buffer = EventBuffer(bound)
                for token in added.split():
                    buffer.add({"phase": self.PHASES[token[0]], "seq": token})
                self.assertEqual(" ".join(e["seq"] for e in buffer.take(100)), left)
                self.assertEqual((buffer.heartbeats_dropped, buffer.over_bound), (dropped, over))

    def test_put_back_keeps_order_and_evicts_heartbeats_for_room(self):
        from meshscope_report.buffer import EventBuffer

        buffer = EventBuffer(3)
        for seq in ("L1", "L2"):
            buffer.add({"phase": "communicator", "seq": seq})
        batch = buffer.take(10)  # in flight
        buffer.add({"phase": "ready", "seq": "R1"})
        buffer.add({"phase": "heartbeat", "seq": "H1"})
        buffer.put_back(batch)  # the POST failed: L1 L2 back in front; 4 > 3, so H1 goes
        self.assertEqual([e["seq"] for e in buffer.take(10)], ["L1", "L2", "R1"])
        self.assertEqual(buffer.heartbeats_dropped, 1)


class RetryAfterParseTest(unittest.TestCase):
    def test_seconds_and_http_dates(self):
        from meshscope_report.transport import parse_retry_after

        now = 1445412450.0  # 30 s before Wed, 21 Oct 2015 07:28:00 GMT (= 1445412480, worked by hand)
        table = [
            ("5", 5.0), ("0", 0.0), (" 7 ", 7.0), ("100000", 300.0),  # capped: a rank never goes quiet longer
            ("Wed, 21 Oct 2015 07:28:00 GMT", 30.0),
            ("Wed, 21 Oct 2015 07:27:00 GMT", 0.0),  # in the past: now
            ("Wed, 21 Oct 2015 07:28:00", None),  # no zone: not an HTTP-date
            ("soon", None), ("", None), ("-3", None), ("1.5", None), (None, None),
        ]
        for value, expected in table:
            with self.subTest(value=value):
                self.assertEqual(parse_retry_after(value, now), expected)


class UnreachableCollectorTest(unittest.TestCase):
    def test_memory_is_bounded_and_only_heartbeats_are_dropped(self):
        reporter, clock = make_reporter(f"http://127.0.0.1:{free_port()}", MESHSCOPE_MAX_PENDING=1000)
        reporter.activate()
        tracemalloc.start()
        for i in range(1000):
            reporter.emit("communicator", "done", {"groups": {"ep": [i % 8]}})
        for _ in range(100_000):
            reporter.emit("heartbeat", "done")
        current, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        self.assertEqual(reporter.pending(), 1000)
        self.assertEqual(reporter.stats()["heartbeats_dropped"], 100_000)
        self.assertEqual(reporter.dropped, 100_000)
        self.assertLess(current, 2_000_000)  # 1000 small dicts, not 101,000
        for _ in range(5):  # lifecycle events beyond the bound are kept, and counted
            reporter.emit("ready", "done")
        self.assertEqual((reporter.pending(), reporter.stats()["over_bound"]), (1005, 5))
        reporter.step(clock())
        self.assertEqual(reporter.pending(), 1005)  # kept for a retry
        self.assertEqual(reporter.sent, 0)

    def test_jittered_backoff_with_fake_clock(self):
        # 0.25 s doubling up to MESHSCOPE_BACKOFF_MAX_S (2 s), times U(0.5, 1.5) pinned at its low end, its
        # middle and its high end: the gaps between attempts, worked by hand.
        table = [
            (0.0, [0.125, 0.25, 0.5, 1.0, 1.0, 1.0]),
            (0.5, [0.25, 0.5, 1.0, 2.0, 2.0, 2.0]),
            (1.0, [0.375, 0.75, 1.5, 3.0, 3.0, 3.0]),
        ]
        for u, expected in table:
            with self.subTest(u=u):
                reporter, clock = make_reporter(f"http://127.0.0.1:{free_port()}", MESHSCOPE_BACKOFF_MAX_S=2)
                reporter._random = FixedRandom(u)
                reporter.activate()
                reporter.emit("launch", "done")
                attempts = []
                start = clock()
                for _ in range(200):  # 25 s of fake time in exact 125 ms steps
                    before = reporter.requests
                    reporter.step(clock())
                    if reporter.requests > before:
                        attempts.append(clock() - start)
                    clock.advance(0.125)
                gaps = [b - a for a, b in zip(attempts, attempts[1:])]
                self.assertEqual(gaps[:6], expected)
                self.assertEqual(reporter.pending(), 1)  # `launch` still waits; heartbeats never piled up

    def test_no_heartbeats_pile_up_while_away(self):
        reporter, clock = make_reporter(f"http://127.0.0.1:{free_port()}", MESHSCOPE_HEARTBEAT_S=1)
        reporter.activate()
        for _ in range(600):
            reporter.step(clock.advance(0.1))
        self.assertLessEqual(reporter.pending(), 1)
        stats = reporter.stats()
        self.assertEqual(stats["dropped"], stats["heartbeats_dropped"] + stats["heartbeats_refused"])
        self.assertGreaterEqual(stats["dropped"], 55)  # one a second for 60 s, none delivered, none kept

    def test_shutdown_does_not_wait_for_an_answer_that_never_comes(self):
        hole = BlackHole()
        try:
            reporter, _ = make_reporter(hole.url, clock=time.monotonic, start_thread=True, MESHSCOPE_TIMEOUT_S=30)
            reporter.activate()
            for _ in range(50):
                reporter.emit("communicator", "done")
            # the sender is now stuck waiting for an answer that never comes (timeout 30 s)
            self.assertTrue(wait_until(lambda: reporter.requests >= 1))
            stopper = threading.Thread(target=reporter.shutdown, daemon=True)
            stopper.start()
            stopper.join(timeout=20)  # hang guard, under the request's 30 s: shutdown must not wait for it
            self.assertFalse(stopper.is_alive(), "shutdown waited for the request timeout")
            self.assertFalse(reporter.enabled)
        finally:
            hole.close()

    def test_interpreter_exit_does_not_wait_for_an_answer_that_never_comes(self):
        hole = BlackHole()
        try:
            code = ("import meshscope_report; s = meshscope_report.install(); s.reporter.activate();"
                    "[s.reporter.emit('heartbeat', 'done') for _ in range(10)]")
            env = clean_env(PYTHONPATH=CLIENT, MESHSCOPE_URL=hole.url, MESHSCOPE_TIMEOUT_S=30, **KNOWN)
            # the timeout is a hang guard under the request's 30 s: exit must not wait for the answer
            process = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=20)
            self.assertEqual(process.returncode, 0, process.stderr)
        finally:
            hole.close()


class FakeCollectorTest(unittest.TestCase):
    def setUp(self):
        self.collector = FakeCollector(token="s3cret")

    def tearDown(self):
        self.collector.close()

    def test_pending_events_go_in_one_batch_with_identity_and_token(self):
        reporter, clock = make_reporter(self.collector.url, MESHSCOPE_TOKEN="s3cret", MESHSCOPE_JOB="j1")
        reporter.activate()
        for i in range(10):
            reporter.emit("communicator", "done", {"groups": {"ep": [2, 3]}})
        reporter.step(clock())
        self.assertEqual(len(self.collector.requests), 1)
        request = self.collector.requests[0]
        self.assertEqual(request["headers"]["Authorization"], "Bearer s3cret")
        self.assertEqual(len(request["events"]), 10)
        event = request["events"][0]
        for key, value in {"job": "j1", "rank": 3, "world_size": 8, "local_rank": 3, "phase": "communicator",
                           "status": "done", "ts": 1000.0, "pid": os.getpid()}.items():
            self.assertEqual(event[key], value, key)
        self.assertEqual(reporter.sent, 10)

    def test_batch_size_is_capped(self):
        reporter, clock = make_reporter(self.collector.url, MESHSCOPE_TOKEN="s3cret", MESHSCOPE_BATCH_MAX=4)
        reporter.activate()
        for _ in range(10):
            reporter.emit("communicator", "done")
        while reporter.pending():
            reporter.step(clock())
        self.assertEqual([len(r["events"]) for r in self.collector.requests], [4, 4, 2])

    def test_big_batches_are_split_under_the_body_limit(self):
        from meshscope_report.transport import MAX_BODY_BYTES

        reporter, clock = make_reporter(self.collector.url, MESHSCOPE_TOKEN="s3cret")
        reporter.activate()
        for i in range(40):  # ~93 KB each: a 16,385-rank group that is not evenly spaced
            reporter.emit("ready", "done", {"groups": {"dp": uneven_group(i)}})
        reporter.step(clock())
        self.assertEqual(len(self.collector.events()), 40)
        self.assertTrue(all(r["bytes"] <= MAX_BODY_BYTES for r in self.collector.requests))
        self.assertEqual((reporter.sent, reporter.pending()), (40, 0))

    def test_evenly_spaced_groups_travel_as_first_step_count(self):
        # Hand-worked: the mp_shard group of a 16,384-rank job is ranks 0..16383; rank 5's efsdp group of a
        # (1, 4, 2, 2) expert mesh is [1, 5, 9, 13] (docs/protocol.md): 4 members stay a list, as does a long
        # group with one gap that differs, and the caller's own dict is left as it was.
        reporter, clock = make_reporter(self.collector.url, MESHSCOPE_TOKEN="s3cret")
        reporter.activate()
        groups = {
            "mp_shard": list(range(16384)),
            "dp": list(range(33, 33 + 17 * 64, 64))[::-1],  # 17 members, given in descending order
            "efsdp": [1, 5, 9, 13],
            "uneven": uneven_group(0),
        }
        reporter.emit("ready", "done", {"groups": groups})
        # new_group's own record of the group it created (attach.md): its members travel the same way.
        reporter.emit("communicator", "done", {"group": {"index": 3, "members": list(range(16384))}})
        reporter.step(clock())
        created = [e for e in self.collector.events() if e["phase"] == "communicator"][0]["group"]
        self.assertEqual(created, {"index": 3, "members": {"first": 0, "step": 1, "count": 16384}})
        sent = [e for e in self.collector.events() if e["phase"] == "ready"][0]["groups"]
        self.assertEqual(sent["mp_shard"], {"first": 0, "step": 1, "count": 16384})
        self.assertEqual(sent["dp"], {"first": 33, "step": 64, "count": 17})
        self.assertEqual(sent["efsdp"], [1, 5, 9, 13])
        self.assertEqual(sent["uneven"], uneven_group(0))
        self.assertEqual(groups["mp_shard"], list(range(16384)))
        self.assertLess(sum(r["bytes"] for r in self.collector.requests), 100_000)  # the uneven group is 92.7 KB

    def test_wrong_token_is_rejected_not_retried(self):
        warnings = []
        reporter, clock = make_reporter(self.collector.url, MESHSCOPE_TOKEN="wrong", MESHSCOPE_HEARTBEAT_S=3600)
        reporter._warn = warnings.append
        reporter.activate()
        reporter.emit("launch", "done")
        reporter.step(clock())
        reporter.step(clock.advance(10))
        self.assertEqual((reporter.sent, reporter.rejected, reporter.pending()), (0, 1, 0))
        self.assertEqual(len(warnings), 1)
        self.assertIn("401", warnings[0])

    def test_nothing_is_sent_before_the_rank_is_known(self):
        env = {"MESHSCOPE_URL": self.collector.url, "MESHSCOPE_TOKEN": "s3cret"}
        clock = FakeClock()
        reporter = Reporter(Config.from_env(env), identity_from_env(env), clock=clock, monotonic=clock,
                            start_thread=False)
        reporter.activate()
        reporter.emit("launch", "done")
        reporter.step(clock())
        self.assertEqual(self.collector.requests, [])
        reporter.set_identity(reporter.identity.with_rank(1, 2))  # init_process_group told us
        reporter.step(clock())
        self.assertEqual([(e["rank"], e["world_size"]) for e in self.collector.events()], [(1, 2)])

    def test_heartbeats_with_fake_clock(self):
        reporter, clock = make_reporter(self.collector.url, MESHSCOPE_TOKEN="s3cret", MESHSCOPE_HEARTBEAT_S=5)
        reporter.activate()
        for _ in range(100):  # 20 s
            reporter.step(clock.advance(0.2))
        beats = [e for e in self.collector.events() if e["phase"] == "heartbeat"]
        self.assertEqual(len(beats), 4)
        self.assertEqual(beats[0]["reporter"]["dropped"], 0)

    def test_background_thread_delivers_and_exit_is_sent(self):
        reporter, _ = make_reporter(self.collector.url, clock=time.time, start_thread=True, MESHSCOPE_TOKEN="s3cret")
        reporter.activate()
        reporter.emit("process_group", "started")
        self.assertTrue(wait_until(self.collector.events))
        reporter.shutdown()
        phases = [e["phase"] for e in self.collector.events()]
        self.assertEqual(phases, ["process_group", "exit"])

    def test_one_bad_event_costs_only_itself(self):
        # The collector takes a body all or nothing: 400 when any event of it is bad.
        picky = FakeCollector(answer=lambda events: 400 if any(e.get("groups") == "bad" for e in events) else 200)
        try:
            reporter, clock = make_reporter(picky.url)
            reporter.activate()
            reporter.emit("launch", "done")
            reporter.emit("communicator", "done", {"groups": "bad"})
            reporter.emit("ready", "done")
            reporter.step(clock())
            self.assertEqual([e["phase"] for e in picky.events()], ["launch", "ready"])
            self.assertEqual((reporter.sent, reporter.rejected, reporter.pending()), (2, 1, 0))
        finally:
            picky.close()


class OverloadedCollectorTest(unittest.TestCase):
    """A collector that sheds load (503 + Retry-After), fails (5xx, hangs up) and comes back: the reporter
    waits as told, delivers every lifecycle event exactly once, and drops only heartbeats."""

    @staticmethod
    def lifecycle(events):
        return [e["seq"] for e in events if e["phase"] != "heartbeat" and "seq" in e]

    def test_waits_at_least_retry_after_then_delivers_each_event_once(self):
        def seconds():
            return "1", None

        def http_date():  # whole seconds, so at least 1 s ahead of now once truncated
            when = int(time.time()) + 2
            return email.utils.formatdate(when, usegmt=True), float(when)

        for label, make_value in (("delta-seconds", seconds), ("HTTP-date", http_date)):
            with self.subTest(label):
                told = []  # (request index, Retry-After seconds or None, HTTP-date as epoch seconds or None)

                def answer(events):
                    if len(told) < 2:
                        value, when = make_value()
                        told.append((value, when))
                        return 503, {"Retry-After": value}
                    return 200

                collector = FakeCollector(answer=answer)
                try:
                    reporter, _ = make_reporter(collector.url, clock=time.time, start_thread=True,
                                                MESHSCOPE_HEARTBEAT_S=3600)
                    reporter._monotonic = time.monotonic
                    reporter.activate()
                    phases = ["launch", "process_group", "device_mesh", "communicator", "ready"]
                    for seq, phase in enumerate(phases):
                        reporter.emit(phase, "done", {"seq": seq})
                    self.assertTrue(wait_until(lambda: len(collector.events()) >= len(phases)),
                                    collector.log())
                    reporter.shutdown()
                    log = collector.log()
                    self.assertEqual([r["status"] for r in log[:3]], [503, 503, 200])
                    for refused, retry, (value, when) in zip(log, log[1:], told):
                        if when is None:  # seconds after the refusal left the collector
                            self.assertGreaterEqual(retry["arrived"] - refused["answered"], float(value))
                        else:  # not before the date (50 ms for the wall clock's own resolution)
                            self.assertGreaterEqual(retry["arrived_wall"], when - 0.05)
                        self.assertLess(retry["arrived"] - refused["answered"], 30)  # hang guard only
                    self.assertEqual(self.lifecycle(collector.events()), list(range(len(phases))))
                    self.assertEqual(self.lifecycle(log[0]["events"]), self.lifecycle(log[2]["events"][:len(log[0]["events"])]))
                finally:
                    collector.close()

    def test_a_refused_heartbeat_is_not_retried(self):
        # The collector's low watermark: bodies made only of heartbeats get 503 + Retry-After: 5.
        def answer(events):
            if all(e["phase"] == "heartbeat" for e in events):
                return 503, {"Retry-After": "5"}
            return 200

        collector = FakeCollector(answer=answer)
        try:
            reporter, clock = make_reporter(collector.url, MESHSCOPE_HEARTBEAT_S=5)
            reporter._random = FixedRandom(0.0)  # Retry-After x U(1, 1.5) at its low end: exactly 5 s
            reporter.activate()
            reporter.emit("launch", "done", {"seq": 0})
            reporter.step(clock())
            self.assertEqual(len(collector.log()), 1)
            reporter.step(clock.advance(5))  # heartbeat due: sent alone, refused
            self.assertEqual([r["status"] for r in collector.log()], [200, 503])
            self.assertEqual((reporter.pending(), reporter.stats()["heartbeats_refused"]), (0, 1))
            self.assertEqual(reporter.retry_at, clock() + 5)
            reporter.emit("ready", "done", {"seq": 1})
            reporter.step(clock.advance(4.9))  # told to wait 5 s: nothing goes out before
            self.assertEqual(len(collector.log()), 2)
            reporter.step(clock.advance(0.1))  # the next heartbeat is due too: it rides with `ready`
            log = collector.log()
            self.assertEqual([r["status"] for r in log], [200, 503, 200])
            self.assertEqual([e["phase"] for e in log[2]["events"]], ["ready", "heartbeat"])
            heartbeat_times = [e["ts"] for r in log for e in r["events"] if e["phase"] == "heartbeat"]
            self.assertEqual(len(heartbeat_times), len(set(heartbeat_times)))  # none sent twice
            self.assertEqual(self.lifecycle(collector.events()), [0, 1])
        finally:
            collector.close()

    def test_long_outage_with_a_tiny_buffer_loses_only_heartbeats(self):
        outages = [
            ("503 with Retry-After (shedding)", (503, {"Retry-After": "1"})),
            ("503 past the connection limit", (503, {"Retry-After": "2", "Connection": "close"})),
            ("500 without Retry-After", 500),
            ("hangs up without an answer", None),
        ]
        for label, down_answer in outages:
            with self.subTest(label):
                state = {"down": True}
                collector = FakeCollector(answer=lambda events: down_answer if state["down"] else 200)
                try:
                    reporter, clock = make_reporter(collector.url, MESHSCOPE_MAX_PENDING=16, MESHSCOPE_HEARTBEAT_S=1)
                    emitted = {"heartbeats": 0}
                    emit = reporter.emit

                    def counting_emit(phase, status, fields=None):
                        emitted["heartbeats"] += phase == "heartbeat"
                        emit(phase, status, fields)

                    reporter.emit = counting_emit
                    reporter.activate()
                    for tick in range(480):  # 120 s of fake time: a lifecycle event every 4 s, 30 in all
                        if tick % 16 == 0:
                            reporter.emit("communicator", "done", {"seq": tick // 16})
                        reporter.step(clock.advance(0.25))
                    self.assertEqual(self.lifecycle(collector.events()), [])
                    self.assertGreater(len(collector.log()), 10)  # it kept trying
                    state["down"] = False
                    for _ in range(400):  # recovery: at most one backoff (<= 7.5 s) to wait
                        reporter.step(clock.advance(0.25))
                        if not reporter.pending():
                            break
                    delivered = collector.events()
                    self.assertEqual(self.lifecycle(delivered), list(range(30)))  # all, once, in order
                    stats = reporter.stats()
                    self.assertEqual(stats["over_bound"], 14)  # 30 lifecycle events in a buffer of 16
                    delivered_heartbeats = sum(e["phase"] == "heartbeat" for e in delivered)
                    self.assertEqual(stats["dropped"], emitted["heartbeats"] - delivered_heartbeats - stats["pending"])
                    self.assertEqual(stats["sent"], 30 + delivered_heartbeats)
                finally:
                    collector.close()

    def test_a_split_body_resends_only_the_half_that_failed(self):
        count = {"n": 0}

        def answer(events):
            count["n"] += 1
            return 503 if count["n"] == 2 else 200  # the second half of the first attempt fails

        collector = FakeCollector(answer=answer)
        try:
            reporter, clock = make_reporter(collector.url)
            reporter.activate()
            for i in range(40):  # ~93 KB each: split in halves under the body limit
                reporter.emit("ready", "done", {"seq": i, "groups": {"dp": uneven_group(i)}})
            for _ in range(100):
                reporter.step(clock.advance(0.25))
                if not reporter.pending():
                    break
            self.assertEqual(self.lifecycle(collector.events()), list(range(40)))
            self.assertEqual(reporter.sent, 40)
        finally:
            collector.close()


class RelayRetryAfterTest(unittest.TestCase):
    """The real `meshscope relay` in front of a collector that never answers: the reporter says how long it
    waits (MeshScope-Timeout), so the relay answers 503 + Retry-After before that instead of letting the
    request time out in its queue; the reporter keeps its event and waits exactly as told."""

    def test_reporter_honours_the_relays_retry_after(self):
        binary = os.environ.get("MESHSCOPE_BIN", "")
        self.assertTrue(binary and os.access(binary, os.X_OK), "MESHSCOPE_BIN must name the meshscope binary")
        upstream = BlackHole()
        relay = subprocess.Popen([binary, "relay", "--listen", "127.0.0.1:0", "--upstream", upstream.url],
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                 env=clean_env(QT_QPA_PLATFORM="offscreen"))
        try:
            url = f"http://127.0.0.1:{json.loads(relay.stdout.readline())['port']}"

            direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))

            def stats():
                with direct.open(url + "/api/v1/relay", timeout=10) as answer:
                    return json.loads(answer.read())

            # A rank that waits ten minutes takes the relay's one upstream slot; the collector never answers it.
            blocker = socket.create_connection(("127.0.0.1", int(url.rsplit(":", 1)[1])))
            body = b'[{"job":"j","rank":0,"world_size":8,"phase":"launch","status":"started"}]'
            blocker.sendall(b"POST /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nMeshScope-Timeout: 600\r\n"
                            b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
            self.assertTrue(wait_until(lambda: stats()["batches_sent"] == 1))

            reporter, clock = make_reporter(url, MESHSCOPE_TIMEOUT_S=5)
            reporter._random = FixedRandom(0.0)  # Retry-After x U(1, 1.5) at its low end: exactly as told
            reporter.activate()
            reporter.emit("launch", "done", {"seq": 0})
            reporter.step(clock())
            transport = reporter._transport
            self.assertEqual(transport.last_status, 503, transport.last_error)
            self.assertTrue(transport.last_error.startswith("HTTP 503: {\"error\":\"relay busy: "), transport.last_error)
            told = transport.retry_after
            self.assertIsNotNone(told)
            self.assertGreaterEqual(told, 1)
            self.assertEqual(reporter.retry_at, clock() + told)
            self.assertEqual(reporter.pending(), 1)  # the lifecycle event is kept
            received = stats()["bodies_received"]
            reporter.step(clock.advance(told - 0.01))  # not before the time it was given
            self.assertEqual(stats()["bodies_received"], received)
            blocker.close()
        finally:
            relay.terminate()
            relay.wait(timeout=30)
            relay.stdout.close()
            upstream.close()


class MeshContextTest(unittest.TestCase):
    """Groups are named by the dim along which their members form a line, in PyTorch's creation order.

    The expected calls are written out by hand from PyTorch's DeviceMesh._init_process_groups (world 8,
    row-major mesh, so rank = sum(coordinate x stride)):
    - torch <= 2.8: for each dim, `self.mesh.swapdims(-1, dim).reshape(-1, self.mesh.size(dim))`, one
      new_group per row: the other dims are walked with the last dim moved into the place of `dim`;
    - torch >= 2.9: for each dim, `layout[dim].nest().remap_to_tensor(rank_map)`: the rows are walked along
      the dim's complement layout, whose modes torch's pycute orders largest stride first, so the rows come
      by their smallest member; a dim spanning the whole world reuses the default group (no call).
    """

    # expert mesh (edp 1, efsdp 2, ep 2, expert_cp 2): strides 8, 4, 2, 1
    EXPERT_1222_TORCH_2_9 = [
        ("edp", [[0], [1], [2], [3], [4], [5], [6], [7]]),
        ("efsdp", [[0, 4], [1, 5], [2, 6], [3, 7]]),
        ("ep", [[0, 2], [1, 3], [4, 6], [5, 7]]),
        ("expert_cp", [[0, 1], [2, 3], [4, 5], [6, 7]]),
    ]
    EXPERT_1222_TORCH_2_8 = [
        # swapdims(-1, 0): walk (expert_cp, efsdp, ep), expert_cp slowest
        ("edp", [[0], [2], [4], [6], [1], [3], [5], [7]]),
        # swapdims(-1, 1): walk (edp, expert_cp, ep), ep fastest
        ("efsdp", [[0, 4], [2, 6], [1, 5], [3, 7]]),
        # swapdims(-1, 2): walk (edp, efsdp, expert_cp)
        ("ep", [[0, 2], [1, 3], [4, 6], [5, 7]]),
        # swapdims(-1, 3) is the mesh itself
        ("expert_cp", [[0, 1], [2, 3], [4, 5], [6, 7]]),
    ]
    # expert mesh (edp 1, efsdp 4, ep 2, expert_cp 1), LlamaFactory's for dp 8, ep 2: strides 8, 2, 1, 1
    # (the same calls in both versions: the dims walked around efsdp are of size 1 but for ep)
    EXPERT_1421 = [
        ("edp", [[0], [1], [2], [3], [4], [5], [6], [7]]),
        ("efsdp", [[0, 2, 4, 6], [1, 3, 5, 7]]),
        ("ep", [[0, 1], [2, 3], [4, 5], [6, 7]]),
        ("expert_cp", [[0], [1], [2], [3], [4], [5], [6], [7]]),
    ]
    # data mesh (dp 8, cp 1): torch >= 2.9 reuses the default group for dp; torch <= 2.8 calls new_group
    DATA_81_TORCH_2_9 = [("cp", [[0], [1], [2], [3], [4], [5], [6], [7]])]
    DATA_81_TORCH_2_8 = [("dp", [[0, 1, 2, 3, 4, 5, 6, 7]]), ("cp", [[0], [1], [2], [3], [4], [5], [6], [7]])]

    def test_names_in_creation_order(self):
        from meshscope_report.session import MeshContext

        expert = ["edp", "efsdp", "ep", "expert_cp"]
        table = [
            ("expert (1,2,2,2), torch >= 2.9", [1, 2, 2, 2], expert, self.EXPERT_1222_TORCH_2_9),
            ("expert (1,2,2,2), torch <= 2.8", [1, 2, 2, 2], expert, self.EXPERT_1222_TORCH_2_8),
            ("expert (1,4,2,1), both", [1, 4, 2, 1], expert, self.EXPERT_1421),
            ("data (8,1), torch >= 2.9", [8, 1], ["dp", "cp"], self.DATA_81_TORCH_2_9),
            ("data (8,1), torch <= 2.8", [8, 1], ["dp", "cp"], self.DATA_81_TORCH_2_8),
        ]
        for label, shape, names, calls in table:
            with self.subTest(label):
                context = MeshContext(shape, names)
                for name, groups in calls:
                    for members in groups:
                        self.assertEqual(context.name_for(members), name, (members, name))
                self.assertIsNone(context.name_for([0, 3]))  # not a line of this mesh

    def test_split_group_names_one_call_per_dim(self):
        from meshscope_report.session import MeshContext

        context = MeshContext([2, 2], ["a", "b"])
        self.assertEqual([context.name_for([0, 2], split=True), context.name_for([0, 1], split=True)], ["a", "b"])


class WrapTest(unittest.TestCase):
    class Boom(Probe):
        def start(self, args, kwargs):
            raise ValueError("probe bug")

        def done(self, token, result, seconds):
            raise ValueError("probe bug")

        def failed(self, token, exc, seconds):
            raise ValueError("probe bug")

    def test_same_result_same_exception_even_with_a_broken_probe(self):
        sentinel = object()

        def make(x, *, y=1):
            """doc"""
            if x == "raise":
                raise error
            return sentinel

        error = RuntimeError("FSDPTurbo parallel state is already initialized with (8, 1, 2), got (8, 1, 4).")
        for probe in (Probe(), self.Boom()):
            wrapped = wrap(make, probe)
            self.assertIs(wrapped(1, y=2), sentinel)
            with self.assertRaises(RuntimeError) as caught:
                wrapped("raise")
            self.assertIs(caught.exception, error)
            self.assertEqual((wrapped.__name__, wrapped.__doc__, wrapped.__wrapped__), ("make", "doc", make))
            self.assertIs(original_of(wrapped), make)
            self.assertIs(wrap(wrapped, probe), wrapped)  # never wrapped twice


class AutoAttachTest(unittest.TestCase):
    def run_python(self, code, **env):
        return subprocess.run([sys.executable, "-c", code], env=clean_env(**env), capture_output=True, text=True,
                              timeout=30)

    def test_without_url_nothing_happens_and_the_shadowed_sitecustomize_still_runs(self):
        import tempfile

        with tempfile.TemporaryDirectory() as other:
            with open(os.path.join(other, "sitecustomize.py"), "w") as handle:
                handle.write("import builtins\nbuiltins.OTHER_SITECUSTOMIZE_RAN = True\n")
            code = ("import sys, threading, builtins; print(threading.active_count(), 'meshscope_report' in sys.modules,"
                    " any('PostImportFinder' in type(f).__name__ for f in sys.meta_path), 'torch' in sys.modules,"
                    " getattr(builtins, 'OTHER_SITECUSTOMIZE_RAN', False))")
            out = self.run_python(code, PYTHONPATH=f"{AUTOATTACH}{os.pathsep}{other}")
            self.assertEqual(out.stdout.split(), ["1", "False", "False", "False", "True"], out.stderr)
            out = self.run_python(code, PYTHONPATH=f"{AUTOATTACH}{os.pathsep}{other}", MESHSCOPE_URL="http://127.0.0.1:1")
            # attached: hooks in place, but still no thread until the process joins a distributed job
            self.assertEqual(out.stdout.split(), ["1", "True", "True", "False", "True"], out.stderr)


if __name__ == "__main__":
    unittest.main()
