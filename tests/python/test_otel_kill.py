"""kill -9 of the MeshScope collector in the middle of a start-up storm that reaches it through real OpenTelemetry
Collector agents (docs/live-at-scale.md, "Through OpenTelemetry"): 32 reporter ranks (separate processes,
MESHSCOPE_PROTOCOL=otlp) on two "nodes", 16 per node agent (otelcol-meshscope: OTLP receiver -> memory_limiter ->
batch -> otlphttp exporter with a file_storage sending queue). Mid-storm the collector is killed with SIGKILL; the
ranks go on and finish, their events accepted by the agents only. Then one agent is killed with SIGKILL too and
started again on the same queue directory, so what it held survives only on disk. The collector is started again
on the same port and database: every event every rank had accepted (each rank checks that its reporter sent all of
them) must be in the job, once the agents have drained their queues, and the job must read as one clean run
(every rank exited, no finding), and hold each event once: an event the collector had stored before it died and
then got again from an agent's retry is a copy, which the restarted collector answers as stored and does not store
again (docs/collector.md, "History"). The counts are printed."""

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

import support
from meshscope_serve import MeshScopeServe
from test_otel_agent import agent_config, listening

BIN = os.environ.get("MESHSCOPE_BIN", "")
NODES = 2
PER_NODE = 16
WORLD = NODES * PER_NODE
JOB = "otel-kill"
PHASES = [("launch", "started"), ("launch", "done"), ("process_group", "started"), ("process_group", "done"),
          ("parallel_state", "started"), ("parallel_state", "done"), ("communicator", "started"),
          ("communicator", "done"), ("ready", "done")]
PACE_S = 0.15  # between a rank's events: a start-up takes seconds, so the kill lands in the middle of it


def rank_main(rank):
    """One rank: its lifecycle at a training process's pace, then exit, through the reporter."""
    from meshscope_report.config import Config
    from meshscope_report.identity import identity_from_env
    from meshscope_report.reporter import Reporter

    env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(rank % PER_NODE), WORLD_SIZE=str(WORLD))
    reporter = Reporter(Config.from_env(env), identity_from_env(env))
    reporter.activate()
    for phase, status in PHASES:
        fields = {"topology": {"dp": WORLD, "cp": 1, "ep": 4}} if phase == "parallel_state" else None
        reporter.emit(phase, status, fields)
        time.sleep(PACE_S)
    reporter.shutdown()
    stats = reporter.stats()
    print(json.dumps(stats))
    # Every event taken by the node's agent: that is what the agent must not lose.
    return 0 if stats["sent"] == len(PHASES) + 1 and stats["pending"] == 0 else 1


def retrying_config(port, collector_url, storage):
    config = agent_config(port, collector_url, storage)
    exporter = config["exporters"]["otlp_http"]
    # Retried for as long as the collector may be away (the default gives up after 300 s; a shorter first
    # interval brings the queue back sooner once it is up).
    exporter["retry_on_failure"] = {"enabled": True, "initial_interval": "100ms", "max_interval": "1s",
                                    "max_elapsed_time": "0s"}
    exporter["timeout"] = "5s"
    return config


class OtelKillTest(unittest.TestCase):
    def test_collector_killed_mid_storm_loses_nothing_an_agent_accepted(self):
        if not BIN:
            raise RuntimeError("MESHSCOPE_BIN is not set: ctest passes the meshscope binary")
        otelcol = support.otelcol(self)
        serve = MeshScopeServe(BIN)
        work = tempfile.TemporaryDirectory(prefix="meshscope-otelkill-")
        agents = {}
        logs = {}

        def start_agent(node):
            config = os.path.join(work.name, f"agent{node}.yaml")
            logs[node] = open(os.path.join(work.name, f"agent{node}.log"), "a+")
            agents[node] = subprocess.Popen([otelcol, "--config", config], stdout=logs[node],
                                            stderr=subprocess.STDOUT)

        def agent_log(node):
            logs[node].flush()
            with open(logs[node].name) as handle:
                return handle.read()[-3000:]

        try:
            ports = [support.free_port() for _ in range(NODES)]
            for node in range(NODES):
                queue = os.path.join(work.name, f"queue{node}")
                os.makedirs(queue)
                with open(os.path.join(work.name, f"agent{node}.yaml"), "w") as handle:
                    json.dump(retrying_config(ports[node], serve.url, queue), handle)
                start_agent(node)
            for node in range(NODES):
                self.assertTrue(serve.wait_for(lambda: listening(ports[node]) or agents[node].poll() is not None,
                                               60, 0.1))
                self.assertIsNone(agents[node].poll(), agent_log(node))

            env = dict(os.environ, MESHSCOPE_PROTOCOL="otlp", MESHSCOPE_JOB=JOB, MESHSCOPE_HEARTBEAT_S="600",
                       PYTHONPATH=support.CLIENT)
            ranks = [subprocess.Popen([sys.executable, os.path.abspath(__file__), "--rank", str(r)],
                                      env=dict(env, MESHSCOPE_URL=f"http://127.0.0.1:{ports[r // PER_NODE]}"),
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                     for r in range(WORLD)]

            # Mid-storm: the collector has taken some of the job, and not all of it.
            def some_ranks_seen():
                try:
                    job = serve.get(f"/api/v1/jobs/{JOB}")
                except Exception:
                    return False
                return job["ranks_seen"] >= 4
            self.assertTrue(serve.wait_for(some_ranks_seen, 60, 0.05), serve.output())
            serve.process.send_signal(signal.SIGKILL)
            serve.process.wait(timeout=10)
            killed_at = time.monotonic()

            for r, process in enumerate(ranks):
                out, err = process.communicate(timeout=120)
                self.assertEqual(process.returncode, 0, f"rank {r}: {out} {err}")
            self.assertLess(time.monotonic() - killed_at, 60)

            # What agent 0 holds now lives only in its file_storage queue: kill it too, and start it again.
            agents[0].send_signal(signal.SIGKILL)
            agents[0].wait(timeout=10)
            start_agent(0)
            self.assertTrue(serve.wait_for(lambda: listening(ports[0]) or agents[0].poll() is not None, 60, 0.1))
            self.assertIsNone(agents[0].poll(), agent_log(0))

            # The collector again, on its port and its database.
            serve.log.write("\n--- restarted after SIGKILL ---\n")
            serve.process = subprocess.Popen(serve.process.args, stdout=serve.log, stderr=subprocess.STDOUT,
                                             env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))

            # Done when every rank reads exited and every event is stored. The first alone is not enough: an agent
            # retries its batches independently, so a rank's exit can come through while a batch holding an
            # earlier event of the same rank still waits out its backoff in the agent's queue.
            expected = sorted(PHASES + [("exit", "done")])

            def complete():
                states = {row["rank"]: row["state"] for row in serve.ranks(JOB)}
                if states != {r: "exited" for r in range(WORLD)}:
                    return False
                held = {(e["rank"], e["phase"], e["status"]) for e in serve.stored_events(JOB)}
                return all((r, phase, status) in held for r in range(WORLD) for phase, status in expected)
            serve.wait_for(complete, 90, 0.5)

            # The late events changed no state: the monitor orders a rank's events by the rank's own clock.
            self.assertEqual({row["rank"]: row["state"] for row in serve.ranks(JOB)},
                             {r: "exited" for r in range(WORLD)})
            job = serve.get(f"/api/v1/jobs/{JOB}")
            self.assertEqual((job["world_size"], job["ranks_seen"]), (WORLD, WORLD))
            self.assertEqual(serve.findings(JOB), [])
            stored = serve.stored_events(JOB)
            duplicates = 0
            for r in range(WORLD):
                mine = [(e["phase"], e["status"]) for e in stored if e["rank"] == r]
                self.assertEqual(sorted(set(mine)), sorted(set(expected)),
                                 f"rank {r}: missing {sorted(set(expected) - set(mine))}\n{serve.output()}\n"
                                 f"{agent_log(0)}\n{agent_log(1)}")
                duplicates += len(mine) - len(expected)
            with urllib.request.urlopen(serve.url + "/metrics", timeout=10) as response:
                metrics = response.read().decode()
            dropped = re.search(r"^meshscope_events_duplicate_total (\d+)$", metrics, re.M)
            print(json.dumps({"ranks": WORLD, "events_expected": WORLD * len(expected), "events_stored": len(stored),
                              "duplicates_stored": duplicates,
                              "duplicates_dropped": int(dropped.group(1)) if dropped else None}))
            self.assertEqual(duplicates, 0)
        finally:
            for process in agents.values():
                support.stop(process)
            for handle in logs.values():
                handle.close()
            serve.close()
            work.cleanup()


if __name__ == "__main__" and len(sys.argv) == 3 and sys.argv[1] == "--rank":
    sys.exit(rank_main(int(sys.argv[2])))
elif __name__ == "__main__":
    unittest.main()
