"""Unit tests of the reporter core (no torch): settings, identity, queueing, batching, backoff, heartbeats,
token, bounded memory and bounded exit time. Runs under any Python >= 3.9."""

import os
import subprocess
import sys
import time
import tracemalloc
import unittest

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


class UnreachableCollectorTest(unittest.TestCase):
    def test_memory_is_bounded_and_drops_are_counted(self):
        reporter, clock = make_reporter(f"http://127.0.0.1:{free_port()}", MESHSCOPE_MAX_PENDING=1000)
        reporter.activate()
        tracemalloc.start()
        for i in range(100_000):
            reporter.emit("communicator", "done", {"groups": {"ep": [i % 8]}})
        current, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        self.assertEqual(reporter.pending(), 1000)
        self.assertEqual(reporter.dropped, 99_000)
        self.assertLess(current, 2_000_000)  # 1000 small dicts, not 100,000
        reporter.step(clock())
        self.assertEqual(reporter.pending(), 1000)  # kept for a retry, still bounded
        self.assertEqual(reporter.sent, 0)

    def test_backoff_with_fake_clock(self):
        reporter, clock = make_reporter(f"http://127.0.0.1:{free_port()}", MESHSCOPE_BACKOFF_MAX_S=2)
        reporter.activate()
        reporter.emit("launch", "done")
        attempts = []
        start = clock()
        for _ in range(160):  # 20 s of fake time in exact 125 ms steps
            before = reporter.requests
            reporter.step(clock())
            if reporter.requests > before:
                attempts.append(round(clock() - start, 2))
            clock.advance(0.125)
        gaps = [round(b - a, 2) for a, b in zip(attempts, attempts[1:])]
        self.assertEqual(gaps[:4], [0.25, 0.5, 1.0, 2.0])
        self.assertTrue(all(g == 2.0 for g in gaps[3:]), gaps)  # capped

    def test_no_heartbeats_pile_up_while_away(self):
        reporter, clock = make_reporter(f"http://127.0.0.1:{free_port()}", MESHSCOPE_HEARTBEAT_S=1)
        reporter.activate()
        for _ in range(600):
            reporter.step(clock.advance(0.1))
        self.assertLessEqual(reporter.pending(), 1)

    def test_exit_waits_at_most_two_seconds(self):
        hole = BlackHole()
        try:
            reporter, _ = make_reporter(hole.url, clock=time.monotonic, start_thread=True, MESHSCOPE_TIMEOUT_S=30)
            reporter.activate()
            for _ in range(50):
                reporter.emit("communicator", "done")
            time.sleep(0.2)  # the sender is now stuck waiting for an answer that never comes
            begin = time.monotonic()
            reporter.shutdown()
            self.assertLessEqual(time.monotonic() - begin, 2.2)
            self.assertFalse(reporter.enabled)
        finally:
            hole.close()

    def test_interpreter_exit_is_bounded(self):
        hole = BlackHole()
        try:
            code = ("import meshscope_report, time; s = meshscope_report.install(); s.reporter.activate();"
                    "[s.reporter.emit('heartbeat', 'done') for _ in range(10)]; time.sleep(0.2);"
                    "print(time.monotonic(), flush=True)")
            env = clean_env(PYTHONPATH=CLIENT, MESHSCOPE_URL=hole.url, MESHSCOPE_TIMEOUT_S=30, **KNOWN)
            process = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=30)
            ended = time.monotonic()
            self.assertEqual(process.returncode, 0, process.stderr)
            self.assertLessEqual(ended - float(process.stdout.split()[-1]), 2.6)
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
            reporter.emit("heartbeat", "done")
        while reporter.pending():
            reporter.step(clock())
        self.assertEqual([len(r["events"]) for r in self.collector.requests], [4, 4, 2])

    def test_big_batches_are_split_under_the_body_limit(self):
        from meshscope_report.transport import MAX_BODY_BYTES

        reporter, clock = make_reporter(self.collector.url, MESHSCOPE_TOKEN="s3cret")
        reporter.activate()
        for i in range(40):  # ~110 KB each: the dp group of a 16,384-rank job
            reporter.emit("ready", "done", {"groups": {"dp": list(range(i, 16384 * 2, 2))}})
        reporter.step(clock())
        self.assertEqual(len(self.collector.events()), 40)
        self.assertTrue(all(r["bytes"] <= MAX_BODY_BYTES for r in self.collector.requests))
        self.assertEqual((reporter.sent, reporter.pending()), (40, 0))

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
        deadline = time.monotonic() + 5
        while not self.collector.events() and time.monotonic() < deadline:
            time.sleep(0.01)
        reporter.shutdown()
        phases = [e["phase"] for e in self.collector.events()]
        self.assertEqual(phases, ["process_group", "exit"])

    def test_one_bad_event_costs_only_itself(self):
        picky = FakeCollector()
        try:
            original = picky.server.RequestHandlerClass.do_POST

            def do_post(handler):
                body_len = int(handler.headers.get("Content-Length", 0))
                body = handler.rfile.read(body_len)
                if b'"bad"' in body:
                    return handler._answer(400, {"error": "event 1: field \"groups\" must be an object"})
                import io
                handler.rfile = io.BytesIO(body)
                return original(handler)

            picky.server.RequestHandlerClass.do_POST = do_post
            reporter, clock = make_reporter(picky.url)
            reporter.activate()
            reporter.emit("launch", "done")
            reporter.emit("communicator", "done", {"groups": "bad"})
            reporter.emit("ready", "done")
            reporter.step(clock())
            self.assertEqual([e["phase"] for e in picky.events()], ["launch", "ready"])
            self.assertEqual((reporter.sent, reporter.rejected), (2, 1))
        finally:
            picky.close()


class MeshContextTest(unittest.TestCase):
    """Groups are named by the dim along which their members form a line, in creation order."""

    @staticmethod
    def lines(shape, dim, order):
        from meshscope_report.mesh import group_along

        world = 1
        for n in shape:
            world *= n
        seen, out = set(), []
        for rank in range(world):
            line = tuple(group_along(shape, dim, rank))
            if line not in seen:
                seen.add(line)
                out.append(list(line))
        if order == "swapdims":  # PyTorch <= 2.8: same groups, other order within a dim
            out.reverse()
        return out

    def test_names(self):
        from meshscope_report.session import MeshContext

        expert = ["edp", "efsdp", "ep", "expert_cp"]
        table = [
            ("expert (1,4,2,1), torch >= 2.9 order", [1, 4, 2, 1], expert, "lexicographic", []),
            ("expert (1,2,4,2), torch <= 2.8 order", [1, 2, 4, 2], expert, "swapdims", []),
            ("data (8,1), dp group reused from the default group", [8, 1], ["dp", "cp"], "lexicographic", ["dp"]),
        ]
        for label, shape, names, order, skipped in table:
            with self.subTest(label):
                context = MeshContext(shape, names)
                for d, name in enumerate(names):
                    if name in skipped:
                        continue
                    for line in self.lines(shape, d, order):
                        self.assertEqual(context.name_for(line), name, (line, name))
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
