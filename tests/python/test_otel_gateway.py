"""A site's OpenTelemetry topology end to end (docs/live-at-scale.md, "A gateway"): 8 reporter ranks on 2 nodes
(separate processes, MESHSCOPE_PROTOCOL=otlp), each node's ranks -> its own otelcol-meshscope agent -> one
otelcol-meshscope gateway -> `meshscope serve`'s POST /v1/logs, every Collector running the config shipped in
deploy/otelcol/ (agent.yaml, gateway.yaml) as it is, with only its environment set, the collector's token
included. While the ranks are still running, the Live API must show the job all ready with every event once; then
the ranks exit and every exit arrives too. The collector binary comes from scripts/otelcol.sh (built once into
its cache)."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

import support
from meshscope_serve import MeshScopeServe
from test_otel_agent import listening

BIN = os.environ.get("MESHSCOPE_BIN", "")
ROOT = support.ROOT
CONFIGS = os.path.join(ROOT, "deploy", "otelcol")
NODES = 2
PER_NODE = 4
WORLD = NODES * PER_NODE
JOB = "otel-gateway"
TOKEN = "gateway-test-token"
PHASES = [("launch", "started"), ("launch", "done"), ("process_group", "started"), ("process_group", "done"),
          ("parallel_state", "started"), ("parallel_state", "done"), ("communicator", "started"),
          ("communicator", "done"), ("ready", "done"), ("heartbeat", "done")]


def rank_main(rank):
    """One rank: its lifecycle up to ready and a heartbeat, then it says so on stdout and keeps running (as a
    training job does) until its stdin closes, then exits through the reporter."""
    from meshscope_report.config import Config
    from meshscope_report.identity import identity_from_env
    from meshscope_report.reporter import Reporter

    env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(rank % PER_NODE), WORLD_SIZE=str(WORLD),
               MESHSCOPE_HOST=f"node{rank // PER_NODE}")
    reporter = Reporter(Config.from_env(env), identity_from_env(env))
    reporter.activate()
    for phase, status in PHASES:
        fields = {"topology": {"dp": WORLD, "cp": 1, "ep": 2}} if phase == "parallel_state" else None
        reporter.emit(phase, status, fields)
    print(json.dumps({"running": True}), flush=True)
    sys.stdin.read()  # the test closes it once it has read the collector
    reporter.shutdown()  # queues exit, waits at most MESHSCOPE_EXIT_WAIT_S for the agent's answer
    stats = reporter.stats()
    print(json.dumps(stats), flush=True)
    return 0 if stats["sent"] == len(PHASES) + 1 and stats["pending"] == 0 else 1


class OtelGatewayTest(unittest.TestCase):
    def test_ranks_through_two_agents_and_a_gateway_to_the_collector(self):
        if not BIN:
            raise RuntimeError("MESHSCOPE_BIN is not set: ctest passes the meshscope binary")
        otelcol = support.otelcol(self)
        serve = MeshScopeServe(BIN, token=TOKEN)
        work = tempfile.TemporaryDirectory(prefix="meshscope-otelgw-")
        collectors, logs, ranks = [], [], []

        def start(name, config, port, env):
            os.makedirs(os.path.join(work.name, name))
            log = open(os.path.join(work.name, name + ".log"), "w+")
            logs.append(log)
            process = subprocess.Popen([otelcol, "--config", os.path.join(CONFIGS, config)], stdout=log,
                                       stderr=subprocess.STDOUT, env=dict(os.environ, **env))
            collectors.append(process)
            self.assertTrue(serve.wait_for(lambda: listening(port) or process.poll() is not None, 60, 0.1))
            log.flush()
            self.assertIsNone(process.poll(), f"{name}: " + open(log.name).read()[-4000:])

        def tails():
            for log in logs:
                log.flush()
            return "\n".join(f"{log.name}: {open(log.name).read()[-2000:]}" for log in logs)

        try:
            gateway_port = support.free_port()
            start("gateway", "gateway.yaml", gateway_port,
                  {"MESHSCOPE_COLLECTOR": serve.url, "MESHSCOPE_TOKEN": TOKEN,
                   "MESHSCOPE_GATEWAY_LISTEN": f"127.0.0.1:{gateway_port}",
                   "MESHSCOPE_GATEWAY_QUEUE": os.path.join(work.name, "gateway")})
            agent_ports = []
            for node in range(NODES):
                port = support.free_port()
                agent_ports.append(port)
                # The agents know only the gateway: every event reaches the collector through it.
                start(f"agent{node}", "agent.yaml", port,
                      {"MESHSCOPE_UPSTREAM": f"http://127.0.0.1:{gateway_port}",
                       "MESHSCOPE_AGENT_LISTEN": f"127.0.0.1:{port}",
                       "MESHSCOPE_AGENT_QUEUE": os.path.join(work.name, f"agent{node}")})

            for r in range(WORLD):
                env = dict(os.environ, MESHSCOPE_URL=f"http://127.0.0.1:{agent_ports[r // PER_NODE]}",
                           MESHSCOPE_PROTOCOL="otlp", MESHSCOPE_JOB=JOB, MESHSCOPE_HEARTBEAT_S="60",
                           PYTHONPATH=support.CLIENT)
                ranks.append(subprocess.Popen([sys.executable, os.path.abspath(__file__), "--rank", str(r)], env=env,
                                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                              text=True))
            for r, process in enumerate(ranks):
                line = process.stdout.readline()
                self.assertEqual(line.strip(), '{"running": true}', f"rank {r}: {line} {process.poll()}")

            # The job as the Live API shows it while it runs: all ready, each rank's events counted once.
            def all_ready():
                rows = serve.ranks(JOB)
                return len(rows) == WORLD and all(row["state"] == "ready" and row["events"] == len(PHASES)
                                                  for row in rows)

            self.assertTrue(serve.wait_for(all_ready, 30), (serve.ranks(JOB), tails()))
            job = serve.get(f"/api/v1/jobs/{JOB}")
            self.assertEqual((job["world_size"], job["ranks_seen"], job["ranks_ready"], job["events"]),
                             (WORLD, WORLD, WORLD, WORLD * len(PHASES)))
            self.assertEqual(job["states"]["ready"], WORLD)
            self.assertEqual(serve.findings(JOB), [])
            rows = {row["rank"]: row for row in serve.ranks(JOB)}
            self.assertEqual({r: rows[r]["host"] for r in rows}, {r: f"node{r // PER_NODE}" for r in range(WORLD)})
            self.assertEqual({r: rows[r]["phase"] for r in rows}, {r: "ready" for r in range(WORLD)})  # a heartbeat moves no phase

            # The stored history holds each event once (a retried batch would show twice).
            stored = serve.stored_events(JOB)
            for r in range(WORLD):
                mine = [(e["phase"], e["status"]) for e in stored if e["rank"] == r]
                self.assertEqual(sorted(mine), sorted(PHASES), f"rank {r}")
                beats = [e for e in stored if e["rank"] == r and e["phase"] == "heartbeat"]
                self.assertEqual(beats[0]["heartbeats"], 1, f"rank {r}")

            # The ranks end: each exit goes the same way.
            for process in ranks:
                process.stdin.close()
                process.stdin = None  # communicate() below only reads
            for r, process in enumerate(ranks):
                out, err = process.communicate(timeout=60)
                self.assertEqual(process.returncode, 0, f"rank {r}: {out} {err}")

            def all_exited():
                rows = serve.ranks(JOB)
                return len(rows) == WORLD and all(row["state"] == "exited" and row["events"] == len(PHASES) + 1
                                                  for row in rows)

            self.assertTrue(serve.wait_for(all_exited, 30), (serve.ranks(JOB), tails()))
            job = serve.get(f"/api/v1/jobs/{JOB}")
            self.assertEqual((job["ranks_seen"], job["events"]), (WORLD, WORLD * (len(PHASES) + 1)))
            stored = serve.stored_events(JOB)
            self.assertEqual(len(stored), WORLD * (len(PHASES) + 1))
            self.assertEqual(serve.findings(JOB), [])
        finally:
            for process in ranks:
                if process.poll() is None:
                    process.kill()
                    process.wait()
            for process in collectors:
                support.stop(process)
            for log in logs:
                log.close()
            serve.close()
            work.cleanup()


if __name__ == "__main__" and len(sys.argv) == 3 and sys.argv[1] == "--rank":
    sys.exit(rank_main(int(sys.argv[2])))
elif __name__ == "__main__":
    unittest.main()
