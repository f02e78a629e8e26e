"""The OTLP path end to end, through a real OpenTelemetry Collector (docs/live-at-scale.md, "Through OpenTelemetry"):
8 reporter ranks (separate processes, MESHSCOPE_PROTOCOL=otlp) -> otelcol-meshscope as the node's agent (OTLP
receiver -> memory_limiter -> batch -> otlphttp exporter, JSON, a file_storage sending queue) -> `meshscope serve`'s
POST /v1/logs. The job must be complete on the collector: every rank ready, then exited, each with all of its
events stored, and no finding. The collector binary comes from scripts/otelcol.sh (built once into its cache)."""

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import unittest

import support
from meshscope_serve import MeshScopeServe

BIN = os.environ.get("MESHSCOPE_BIN", "")
WORLD = 8
JOB = "otel-agent"
PHASES = [("launch", "started"), ("launch", "done"), ("process_group", "started"), ("process_group", "done"),
          ("parallel_state", "started"), ("parallel_state", "done"), ("communicator", "started"),
          ("communicator", "done"), ("ready", "done"), ("heartbeat", "done")]


def rank_main(rank):
    """One rank: its lifecycle, a heartbeat, then exit, through the reporter as a training process runs it."""
    from meshscope_report.config import Config
    from meshscope_report.identity import identity_from_env
    from meshscope_report.reporter import Reporter

    env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(WORLD))
    reporter = Reporter(Config.from_env(env), identity_from_env(env))
    reporter.activate()
    for phase, status in PHASES:
        fields = {"topology": {"dp": WORLD, "cp": 1, "ep": 2}} if phase == "parallel_state" else None
        reporter.emit(phase, status, fields)
    reporter.shutdown()  # queues exit, waits at most MESHSCOPE_EXIT_WAIT_S for the agent's answer
    stats = reporter.stats()
    print(json.dumps(stats))
    return 0 if stats["sent"] == len(PHASES) + 1 and stats["pending"] == 0 else 1


def agent_config(port, collector_url, storage):
    # JSON is YAML: otelcol reads it as its config file.
    return {
        "receivers": {"otlp": {"protocols": {"http": {"endpoint": f"127.0.0.1:{port}"}}}},
        "processors": {"memory_limiter": {"check_interval": "1s", "limit_mib": 256},
                       "batch": {"send_batch_size": 512, "timeout": "20ms"}},
        "exporters": {"otlp_http": {"endpoint": collector_url, "encoding": "json", "compression": "none",
                                   "retry_on_failure": {"enabled": True},
                                   "sending_queue": {"enabled": True, "storage": "file_storage"}},
                      "debug": {"verbosity": "basic"}},
        "extensions": {"file_storage": {"directory": storage}},
        "service": {"extensions": ["file_storage"],
                    "telemetry": {"metrics": {"level": "none"}},
                    "pipelines": {"logs": {"receivers": ["otlp"], "processors": ["memory_limiter", "batch"],
                                           "exporters": ["otlp_http", "debug"]}}},
    }


def listening(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


class OtelAgentTest(unittest.TestCase):
    def test_ranks_through_a_real_otelcol_agent_to_the_collector(self):
        if not BIN:
            raise RuntimeError("MESHSCOPE_BIN is not set: ctest passes the meshscope binary")
        otelcol = support.otelcol(self)
        serve = MeshScopeServe(BIN)
        work = tempfile.TemporaryDirectory(prefix="meshscope-otelcol-")
        agent = None
        try:
            port = support.free_port()
            os.makedirs(os.path.join(work.name, "queue"))
            config = os.path.join(work.name, "agent.yaml")
            with open(config, "w") as handle:
                json.dump(agent_config(port, serve.url, os.path.join(work.name, "queue")), handle)
            log = open(os.path.join(work.name, "agent.log"), "w+")
            agent = subprocess.Popen([otelcol, "--config", config], stdout=log, stderr=subprocess.STDOUT)
            self.assertTrue(serve.wait_for(lambda: listening(port) or agent.poll() is not None, 60, 0.1))
            log.flush()
            self.assertIsNone(agent.poll(), open(log.name).read()[-4000:])

            env = dict(os.environ, MESHSCOPE_URL=f"http://127.0.0.1:{port}", MESHSCOPE_PROTOCOL="otlp",
                       MESHSCOPE_JOB=JOB, MESHSCOPE_HEARTBEAT_S="60", PYTHONPATH=support.CLIENT)
            ranks = [subprocess.Popen([sys.executable, os.path.abspath(__file__), "--rank", str(r)], env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                     for r in range(WORLD)]
            for r, process in enumerate(ranks):
                out, err = process.communicate(timeout=60)
                self.assertEqual(process.returncode, 0, f"rank {r}: {out} {err}")

            def complete():
                states = {row["rank"]: row["state"] for row in serve.ranks(JOB)}
                return states == {r: "exited" for r in range(WORLD)}

            self.assertTrue(serve.wait_for(complete, 30), (serve.ranks(JOB), open(log.name).read()[-4000:]))
            job = serve.get(f"/api/v1/jobs/{JOB}")
            self.assertEqual((job["world_size"], job["ranks_seen"], job["ranks_ready"]), (WORLD, WORLD, 0))
            self.assertEqual(serve.findings(JOB), [])
            stored = serve.stored_events(JOB)
            for r in range(WORLD):
                mine = [(e["phase"], e["status"]) for e in stored if e["rank"] == r]
                self.assertEqual(sorted(mine), sorted(PHASES + [("exit", "done")]), f"rank {r}")
                self.assertTrue(all(e.get("host") and e.get("pid") for e in stored if e["rank"] == r))
        finally:
            support.stop(agent)
            serve.close()
            work.cleanup()


if __name__ == "__main__" and len(sys.argv) == 3 and sys.argv[1] == "--rank":
    sys.exit(rank_main(int(sys.argv[2])))
elif __name__ == "__main__":
    unittest.main()
