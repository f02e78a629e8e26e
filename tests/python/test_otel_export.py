"""`meshscope serve --otlp-export URL` (docs/collector-metrics.md, "OTLP export"), against a real OpenTelemetry Collector:
otelcol-meshscope (scripts/otelcol.sh) receives OTLP/HTTP on a free port and writes what it gets with its debug
exporter at verbosity detailed; the test reads that output back. A simulated job with injected faults runs into the
collector, and a records import adds findings with sources; the collector must have received each finding as a log
record with its attributes and each job's rank states and findings by kind as gauges, with the values the test's own
events imply; a second import without one finding sends its removal. Beside it: a dead or silent export URL never slows or breaks ingest, and a bad URL is a usage error."""

import json
import os
import re
import signal
import socket
import subprocess
import tempfile
import time
import unittest
import urllib.request

import support
from meshscope_serve import MeshScopeServe

BIN = os.environ.get("MESHSCOPE_BIN", "")
# The meshes FSDPTurbo and LlamaFactory build (docs/domain.md): which mesh each dim belongs to.
MESH_OF = {"mp_replicate": "model", "mp_shard": "model", "dp": "data", "cp": "data", "edp": "expert",
           "efsdp": "expert", "ep": "expert", "expert_cp": "expert"}
SEVERITY = {"verdict": "FATAL", "straggler": "WARN", "stale_rank": "WARN", "slow_group": "WARN"}  # else ERROR
STATES = ["pending", "initializing", "ready", "failed", "stale", "exited"]


def otelcol_config(port):
    # JSON is YAML: otelcol reads it as its config file.
    return {
        "receivers": {"otlp": {"protocols": {"http": {"endpoint": f"127.0.0.1:{port}"}}}},
        "exporters": {"debug": {"verbosity": "detailed"}},
        "service": {"telemetry": {"metrics": {"level": "none"}},
                    "pipelines": {"logs": {"receivers": ["otlp"], "exporters": ["debug"]},
                                  "metrics": {"receivers": ["otlp"], "exporters": ["debug"]}}},
    }


TIMESTAMPED = re.compile(r"^\d{4}-\d\d-\d\dT[^\t]*\t")
ATTRIBUTE = re.compile(r"^\s+-> ([^:]+): (Str|Int|Slice|Bool|Double)\((.*)\)$")


def attribute_value(kind, text):
    if kind == "Int":
        return int(text)
    if kind == "Slice":
        return json.loads(text)
    return text


def read_debug_output(text):
    """The debug exporter's detailed output as data: (log records, latest gauge points). A log record is a dict of
    its attributes plus "resource" (the resource's attributes), "severity" and "body"; a gauge point is keyed by
    (metric name, sorted attribute items) with its value, the last one written winning."""
    records, points = [], {}
    resource, section, record, metric, point = {}, None, None, None, None
    for line in text.splitlines():
        if TIMESTAMPED.match(line):  # a block's first line follows the logger's "<time>\tinfo\t"
            line = line.split("\t")[-1]
        if line.startswith("ResourceLog #") or line.startswith("ResourceMetrics #"):
            resource, section = {}, "resource"
        elif line.startswith("Resource attributes:"):
            section = "resource"
        elif line.startswith("LogRecord #"):
            record = {"resource": resource}
            records.append(record)
            section = "record"
        elif line.startswith("SeverityText: ") and record is not None:
            record["severity"] = line[len("SeverityText: "):]
        elif line.startswith("Body: Str(") and record is not None:
            record["body"] = line[len("Body: Str("):-1]
        elif line.startswith("EventName: ") and record is not None:
            record["event"] = line[len("EventName: "):]
        elif line.startswith("Attributes:"):
            section = "record"
        elif line.startswith("Descriptor:"):
            section = "descriptor"
        elif line.strip().startswith("-> Name: ") and section == "descriptor":
            metric = line.strip()[len("-> Name: "):]
        elif line.startswith("NumberDataPoints #"):
            point = {}
        elif line.startswith("Data point attributes:"):
            section = "point"
        elif line.startswith("Value: ") and point is not None:
            points[(metric, tuple(sorted(point.items())))] = float(line[len("Value: "):])
            point = None
        else:
            match = ATTRIBUTE.match(line)
            if not match:
                continue
            key, kind, value = match.group(1), match.group(2), attribute_value(match.group(2), match.group(3))
            if section == "resource":
                resource[key] = value
            elif section == "record" and record is not None:
                record[key] = value
            elif section == "point" and point is not None:
                point[key] = value
    return records, points


def post(url, path, body):
    request = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, json.loads(response.read().decode())


def simulate(target, job, faults, dp=8, cp=1, ep=2):
    """A simulated job (meshscope simulate) with injected faults; returns its summary line."""
    out = subprocess.run([BIN, "simulate", "--target", target, "--dp", str(dp), "--cp", str(cp), "--ep", str(ep),
                          "--job", job, "--faults", faults, "--seed", "7", "--speed", "200"],
                         capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise AssertionError(f"meshscope simulate failed: {out.stdout} {out.stderr}")
    return json.loads(out.stdout.splitlines()[0])


def metrics_text(url):
    with urllib.request.urlopen(url + "/metrics", timeout=10) as response:
        return response.read().decode()


def counter(text, name):
    match = re.search(rf"^{name} (\d+)$", text, re.M)
    return int(match.group(1)) if match else None


# A records import (docs/records.md, meshscope.records/1): two findings read from records, with their sources.
RECORDS_JOB = "otel-export-records"
RECORDS = {
    "format": "meshscope.records/1",
    "world_size": 4,
    "findings": [
        {"kind": "verdict", "ranks": [3], "message": "rank 3 never entered allreduce #12 of ep group 1",
         "fix": "look at rank 3's stack", "sources": ["fr/nccl_trace_rank_3.json"]},
        {"kind": "collective_stuck", "ranks": [2, 3], "message": "ep group 1 waits in allreduce #12",
         "fix": "see the verdict", "sources": ["fr/nccl_trace_rank_2.json", "node1.41006:4"]},
    ],
    "ranks": [{"rank": 2, "host": "node1", "pid": 41006}, {"rank": 3, "host": "node1", "pid": 41007}],
}


# Two jobs' communicators from records (docs/collector-metrics.md, "Per-communicator series"): a small job's two, one placed
# on the meshes (dim, index) and one not, and a job of 300, the last 10 not formed, past the cap of 256.
SMALL_COMMUNICATORS = [
    {"name": "0xa1", "comm_id": "0xa1", "nranks": 4, "seen": 3, "state": "not_formed", "source": "NCCL log",
     "dim": "ep", "index": 1},
    {"name": "0xb2", "comm_id": "0xb2", "nranks": 8, "seen": 8, "state": "formed", "source": "NCCL RAS"},
]
MANY_COMMUNICATORS = [{"name": f"0x{i + 1:x}", "comm_id": f"0x{i + 1:x}", "nranks": 2, "seen": 2,
                       "state": "formed" if i < 290 else "not_formed", "source": "NCCL log"} for i in range(300)]


def start_otelcol(test, work):
    """otelcol with the debug exporter on a free port: (process, port, a function that reads its output so far)."""
    otelcol = support.otelcol(test)
    port = support.free_port()
    config = os.path.join(work, "otelcol.yaml")
    with open(config, "w") as handle:
        json.dump(otelcol_config(port), handle)
    log = open(os.path.join(work, "otelcol.log"), "w+")
    agent = subprocess.Popen([otelcol, "--config", config], stdout=log, stderr=subprocess.STDOUT)

    def output():
        log.flush()
        with open(log.name) as handle:
            return handle.read()

    deadline = time.monotonic() + 60
    while "Everything is ready" not in output():
        test.assertIsNone(agent.poll(), output()[-4000:])
        test.assertLess(time.monotonic(), deadline, output()[-4000:])
        time.sleep(0.1)
    return agent, port, output


def prometheus_series(text, name):
    """[(labels dict, value)] of one series name in GET /metrics' text."""
    out = []
    for line in text.splitlines():
        match = re.match(rf"^{name}\{{([^}}]*)\}} (\S+)$", line)
        if match:
            out.append((dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', match.group(1))), float(match.group(2))))
    return out


class OtelExportTest(unittest.TestCase):
    def test_communicator_gauges_reach_a_real_otelcol_as_metrics_writes_them(self):
        if not BIN:
            raise RuntimeError("MESHSCOPE_BIN is not set: ctest passes the meshscope binary")
        work = tempfile.TemporaryDirectory(prefix="meshscope-otel-comms-")
        agent, serve = None, None
        try:
            agent, port, output = start_otelcol(self, work.name)
            serve = MeshScopeServe(BIN, extra=["--otlp-export", f"http://127.0.0.1:{port}", "--otlp-interval", "1"])
            for job, communicators in (("comms-small", SMALL_COMMUNICATORS), ("comms-many", MANY_COMMUNICATORS)):
                document = {"format": "meshscope.records/1", "findings": [], "ranks": [], "world_size": 8,
                            "communicators": communicators}
                status, answer = post(serve.url, f"/api/v1/jobs/{job}/records", document)
                self.assertEqual(status, 200, answer)

            def gauges(name):
                """{job: [(attributes, value)]} of the last export of gauge `name`."""
                _, points = read_debug_output(output())
                found = {}
                for (metric, attributes), value in points.items():
                    if metric == name:
                        found.setdefault(dict(attributes)["slurm_job_id"], []).append((dict(attributes), value))
                return found

            def settled():
                ranks = gauges("meshscope_communicator_ranks")
                return len(ranks.get("comms-small", [])) == 2 and len(ranks.get("comms-many", [])) == 256

            self.assertTrue(serve.wait_for(settled, 30), serve.output()[-2000:])
            ranks = gauges("meshscope_communicator_ranks")
            states = gauges("meshscope_communicator_state")
            omitted = gauges("meshscope_communicators_omitted")
            # The small job: each communicator's attributes and values, as the document gives them.
            self.assertEqual(sorted(ranks["comms-small"], key=lambda p: p[0]["comm_name"]), [
                ({"slurm_job_id": "comms-small", "comm_name": "0xa1", "nranks": "4", "dim": "ep", "group": "1",
                  "source": "NCCL log"}, 3.0),
                ({"slurm_job_id": "comms-small", "comm_name": "0xb2", "nranks": "8", "dim": "", "group": "",
                  "source": "NCCL RAS"}, 8.0)])
            set_states = {(a["comm_name"], a["state"]) for a, v in states["comms-small"] if v == 1}
            self.assertEqual(set_states, {("0xa1", "not_formed"), ("0xb2", "formed")})
            self.assertEqual(len(states["comms-small"]), 2 * 5)
            self.assertEqual(omitted["comms-small"], [({"slurm_job_id": "comms-small"}, 0.0)])
            # The large job: the cap of 256, the 10 not formed among them, 44 counted as omitted.
            written = {a["comm_name"] for a, _ in ranks["comms-many"]}
            self.assertEqual(len(written), 256)
            self.assertTrue({f"0x{i + 1:x}" for i in range(290, 300)} <= written)
            self.assertEqual(len(states["comms-many"]), 256 * 5)
            self.assertEqual(omitted["comms-many"], [({"slurm_job_id": "comms-many"}, 44.0)])
            # The same series as GET /metrics: the same attribute sets and values.
            text = metrics_text(serve.url)
            for name, found in (("meshscope_communicator_ranks", ranks), ("meshscope_communicator_state", states),
                                ("meshscope_communicators_omitted", omitted)):
                exported = sorted((sorted(a.items()), v) for points in found.values() for a, v in points)
                scraped = sorted((sorted(a.items()), v) for a, v in prometheus_series(text, name))
                self.assertEqual(exported, scraped, name)
        finally:
            if serve is not None:
                serve.close()
            support.stop(agent)
            work.cleanup()

    def test_findings_and_gauges_reach_a_real_otelcol(self):
        if not BIN:
            raise RuntimeError("MESHSCOPE_BIN is not set: ctest passes the meshscope binary")
        work = tempfile.TemporaryDirectory(prefix="meshscope-otel-export-")
        agent, serve = None, None
        try:
            agent, port, output = start_otelcol(self, work.name)
            serve = MeshScopeServe(BIN, extra=["--otlp-export", f"http://127.0.0.1:{port}", "--otlp-interval",
                                               "0.5"])

            # A simulated job: one rank fails its communicator, one builds its expert mesh's groups in PyTorch 2.8's
            # order while the others use 2.9's.
            job = "otel-export-sim"
            summary = simulate(serve.url, job, "rank_error=1,creation_order_mismatch=1", dp=8, cp=2, ep=4)
            world = summary["world_size"]
            failed = summary["injected"]["rank_error"]
            misordered = summary["injected"]["creation_order_mismatch"]
            self.assertEqual((world, len(failed), len(misordered)), (16, 1, 1), summary)
            status, answer = post(serve.url, f"/api/v1/jobs/{RECORDS_JOB}/records", RECORDS)
            self.assertEqual((status, answer["findings"]), (200, 2), answer)

            # What the events imply: the failed rank failed, every other rank exited; the records' job has its four
            # ranks pending and the two findings it was given.
            expected_ranks = {job: dict({s: 0 for s in STATES}, failed=1, exited=world - 1),
                              RECORDS_JOB: dict({s: 0 for s in STATES}, pending=4)}

            def gauges():
                _, points = read_debug_output(output())
                found = {}
                for (name, attributes), value in points.items():
                    attributes = dict(attributes)
                    if name == "meshscope_ranks":
                        found.setdefault(("ranks", attributes["slurm_job_id"]), {})[attributes["state"]] = value
                    elif name == "meshscope_findings":
                        found.setdefault(("findings", attributes["slurm_job_id"]), {})[attributes["kind"]] = value
                return found

            def settled():
                found = gauges()
                return (all(found.get(("ranks", j)) == want for j, want in expected_ranks.items())
                        and found.get(("findings", RECORDS_JOB), {}).get("verdict") == 1
                        and found.get(("findings", RECORDS_JOB), {}).get("collective_stuck") == 1
                        and found.get(("findings", job), {}).get("rank_error") == 1
                        and found.get(("findings", job), {}).get("creation_order_mismatch", 0) >= 1)

            self.assertTrue(serve.wait_for(settled, 30), (gauges(), serve.output()[-2000:]))
            found = gauges()
            # Every kind is written, zeros included, under the names GET /metrics uses.
            self.assertEqual(len(found[("findings", job)]), 15, found[("findings", job)])
            self.assertEqual(found[("findings", job)]["missing_rank"], 0)
            prometheus = metrics_text(serve.url)
            self.assertIn(f'meshscope_ranks{{slurm_job_id="{job}",state="failed"}} 1\n', prometheus)
            self.assertIn(f'meshscope_findings{{slurm_job_id="{RECORDS_JOB}",kind="verdict"}} 1\n', prometheus)

            def records_of(job_name):
                records, _ = read_debug_output(output())
                return [r for r in records if r["resource"].get("meshscope.job") == job_name]

            def logged():
                kinds = {r["kind"] for r in records_of(job)}
                return ({"rank_error", "creation_order_mismatch"} <= kinds
                        and {r["kind"] for r in records_of(RECORDS_JOB)} == {"verdict", "collective_stuck"})

            self.assertTrue(serve.wait_for(logged, 30), output()[-4000:])
            for record in records_of(job) + records_of(RECORDS_JOB):
                self.assertEqual(record["resource"]["service.name"], "meshscope")
                self.assertEqual(record["rank_count"], len(record["ranks"]))
                self.assertEqual(record["event"], "meshscope.finding")
                self.assertEqual(record["severity"], SEVERITY.get(record["kind"], "ERROR"), record)
                self.assertIn(record["change"], ("added", "updated"))
                self.assertEqual(record["body"], record["message"])
            rank_error = [r for r in records_of(job) if r["kind"] == "rank_error"][-1]
            self.assertEqual(rank_error["ranks"], failed)
            self.assertTrue(rank_error["fix"])
            misorder = [r for r in records_of(job) if r["kind"] == "creation_order_mismatch"]
            self.assertTrue(any(set(misordered) <= set(r["ranks"]) for r in misorder), misorder)
            for record in misorder:
                self.assertIn(record["dim"], MESH_OF, record)
                self.assertEqual(record["mesh"], MESH_OF[record["dim"]], record)
            by_kind = {r["kind"]: r for r in records_of(RECORDS_JOB)}
            for given in RECORDS["findings"]:
                got = by_kind[given["kind"]]
                self.assertEqual((got["ranks"], got["message"], got["fix"], got["source"]),
                                 (given["ranks"], given["message"], given["fix"], given["sources"]))
            self.assertEqual(by_kind["verdict"]["severity"], "FATAL")

            # The records imported again without the stuck collective: its finding goes, and says so.
            again = dict(RECORDS, findings=RECORDS["findings"][:1])
            status, answer = post(serve.url, f"/api/v1/jobs/{RECORDS_JOB}/records", again)
            self.assertEqual((status, answer["findings"]), (200, 1), answer)
            stuck_id = by_kind["collective_stuck"]["id"]

            def resolved():
                return [r for r in records_of(RECORDS_JOB) if r["change"] == "removed"]

            self.assertTrue(serve.wait_for(resolved, 30), output()[-4000:])
            self.assertEqual([(r["id"], r["kind"], r["severity"], r["body"]) for r in resolved()],
                             [(stuck_id, "collective_stuck", "INFO", f"resolved: {stuck_id}")])
            self.assertTrue(serve.wait_for(
                lambda: gauges().get(("findings", RECORDS_JOB), {}).get("collective_stuck") == 0, 30), gauges())
            # Nothing was dropped or refused on the way.
            prometheus = metrics_text(serve.url)
            self.assertEqual(counter(prometheus, "meshscope_otlp_export_findings_dropped_total"), 0)
            self.assertEqual(counter(prometheus, "meshscope_otlp_export_findings_failed_total"), 0)
            self.assertGreaterEqual(counter(prometheus, "meshscope_otlp_export_findings_sent_total"), 4)
            self.assertGreaterEqual(counter(prometheus, "meshscope_otlp_export_metrics_sent_total"), 1)
        finally:
            if serve is not None:
                serve.close()
            support.stop(agent)
            work.cleanup()


class DeadExportUrlTest(unittest.TestCase):
    """Ingest never waits on the export: a URL nobody listens on, and one that accepts and never answers."""

    def run_job(self, export_url, timeout_s):
        serve = MeshScopeServe(BIN, extra=["--otlp-export", export_url, "--otlp-interval", "0.2",
                                           "--otlp-timeout", str(timeout_s)])
        try:
            started = time.monotonic()
            summary = simulate(serve.url, "dead-export", "rank_error=1")
            # An export that held ingest up would hold it for a whole --otlp-timeout (60 s for the silent URL).
            self.assertLess(time.monotonic() - started, 30)
            self.assertEqual(summary["acknowledged"], summary["events"], summary)
            self.assertTrue(serve.wait_for(lambda: any(f["kind"] == "rank_error"
                                                       for f in serve.findings("dead-export")), 10))
            job = serve.get("/api/v1/jobs/dead-export")
            self.assertEqual(job["ranks_seen"], summary["world_size"])
            return serve
        except BaseException:
            serve.close()
            raise

    def test_a_url_nobody_listens_on(self):
        port = support.free_port()  # nothing listens there
        serve = self.run_job(f"http://127.0.0.1:{port}", 5)
        try:
            # The exporter keeps trying (counted), the finding waits in its queue.
            def counted():
                text = metrics_text(serve.url)
                return ((counter(text, "meshscope_otlp_export_retries_total") or 0) >= 2
                        and (counter(text, "meshscope_otlp_export_findings_queued") or 0) >= 1
                        and (counter(text, "meshscope_otlp_export_metrics_failed_total") or 0) >= 1)

            self.assertTrue(serve.wait_for(counted, 20), metrics_text(serve.url))
            self.assertEqual(counter(metrics_text(serve.url), "meshscope_otlp_export_findings_sent_total"), 0)
            self.assertTrue(serve.wait_for(lambda: "--otlp-export" in serve.output(), 10), serve.output())
        finally:
            serve.close()

    def test_a_url_that_never_answers(self):
        silent = socket.socket()
        silent.bind(("127.0.0.1", 0))
        silent.listen(64)  # connections complete in the backlog; nothing is ever read or answered
        try:
            serve = self.run_job(f"http://127.0.0.1:{silent.getsockname()[1]}", 60)
            # Stopping does not wait for the request in flight (60 s): it is aborted, the queue tried once more
            # within 2 s.
            started = time.monotonic()
            serve.process.send_signal(signal.SIGTERM)
            serve.process.wait(timeout=30)
            self.assertLess(time.monotonic() - started, 10)
            self.assertEqual(serve.process.returncode, 0, serve.output())
            serve.close()
        finally:
            silent.close()


class ScriptedEndpoint:
    """An OTLP/HTTP endpoint on loopback that answers each POST to one of `paths` with the next of `answers` (status,
    headers, body), the last one for ever after, any other POST with 200 {}, and keeps what it received."""

    def __init__(self, answers, paths=("/v1/logs",)):
        import http.server
        import threading

        self.answers, self.received, self.headers, self.lock = list(answers), [], [], threading.Lock()
        endpoint = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with endpoint.lock:
                    endpoint.received.append((self.path, self.headers.get("Content-Type"), json.loads(body),
                                              time.monotonic()))
                    endpoint.headers.append((self.path, dict(self.headers)))
                    if self.path not in paths:
                        status, headers, answer = 200, {}, {}
                    elif len(endpoint.answers) == 1:
                        status, headers, answer = endpoint.answers[0]
                    else:
                        status, headers, answer = endpoint.answers.pop(0)
                data = json.dumps(answer).encode()
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def logs(self):
        """The finding log records received, each with its resource's job, in order."""
        with self.lock:
            received = list(self.received)
        out = []
        for path, _, body, _ in received:
            if path != "/v1/logs":
                continue
            for resource in body["resourceLogs"]:
                job = {a["key"]: a["value"]["stringValue"] for a in resource["resource"]["attributes"]}["meshscope.job"]
                for scope in resource["scopeLogs"]:
                    for record in scope["logRecords"]:
                        attributes = {a["key"]: a["value"] for a in record["attributes"]}
                        out.append((job, attributes["kind"]["stringValue"], record))
        return out

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class ScriptedEndpointTest(unittest.TestCase):
    """Retries and refusals, against an endpoint whose answers the test scripts."""

    def run_against(self, endpoint, extra=()):
        serve = MeshScopeServe(BIN, extra=["--otlp-export", endpoint.url + "/", "--otlp-interval", "0.3", *extra])
        summary = simulate(serve.url, "scripted", "rank_error=1")
        return serve, summary

    def test_busy_answers_are_retried_until_taken(self):
        busy = (503, {"Retry-After": "1"}, {"code": 14, "message": "busy"})
        endpoint = ScriptedEndpoint([busy, busy, (429, {}, {"code": 8, "message": "slow down"}), (200, {}, {})])
        serve = None
        try:
            serve, summary = self.run_against(endpoint, ["--otlp-header", "X-Scope-OrgID: tenant-1",
                                                         "--otlp-header", "Authorization: Bearer s3cret"])
            failed = summary["injected"]["rank_error"]
            self.assertTrue(serve.wait_for(lambda: any(k == "rank_error" for _, k, _ in endpoint.logs()), 30),
                            (endpoint.received, serve.output()))
            job, _, record = [r for r in endpoint.logs() if r[1] == "rank_error"][-1]
            self.assertEqual(job, "scripted")
            ranks = {a["key"]: a["value"] for a in record["attributes"]}["ranks"]["arrayValue"]["values"]
            self.assertEqual([int(v["intValue"]) for v in ranks], failed)
            # The same records were sent until taken: three refusals, each tried again.
            self.assertTrue(all(c == "application/json" for _, c, _, _ in endpoint.received))

            def settled():
                text = metrics_text(serve.url)
                return (counter(text, "meshscope_otlp_export_findings_queued") == 0
                        and counter(text, "meshscope_otlp_export_findings_sent_total") >= 1
                        and counter(text, "meshscope_otlp_export_metrics_sent_total") >= 1)

            self.assertTrue(serve.wait_for(settled, 30), metrics_text(serve.url))
            text = metrics_text(serve.url)
            self.assertGreaterEqual(counter(text, "meshscope_otlp_export_retries_total"), 3)
            self.assertEqual(counter(text, "meshscope_otlp_export_findings_dropped_total"), 0)
            self.assertEqual(counter(text, "meshscope_otlp_export_findings_failed_total"), 0)
            # Every request, logs and metrics, carried the header lines given.
            self.assertEqual({p for p, _ in endpoint.headers}, {"/v1/logs", "/v1/metrics"})
            for _, headers in endpoint.headers:
                self.assertEqual((headers.get("X-Scope-OrgID"), headers.get("Authorization")),
                                 ("tenant-1", "Bearer s3cret"))
            # Retry-After: 1 was honoured: the second attempt came at least a second after the first.
            times = [t for path, _, _, t in endpoint.received if path == "/v1/logs"]
            self.assertGreaterEqual(times[1] - times[0], 1.0, times)
        finally:
            if serve is not None:
                serve.close()
            endpoint.close()

    def test_refusals_are_counted_not_retried(self):
        endpoint = ScriptedEndpoint([(400, {}, {"code": 3, "message": "bad request"})], ("/v1/logs", "/v1/metrics"))
        serve = None
        headers = tempfile.NamedTemporaryFile("w", suffix=".headers", delete=False)
        headers.write("# the gateway's key\n\nAuthorization: Bearer from-file\r\n")
        headers.close()
        try:
            serve, _ = self.run_against(endpoint, ["--otlp-header-file", headers.name])

            def counted():
                text = metrics_text(serve.url)
                return ((counter(text, "meshscope_otlp_export_findings_failed_total") or 0) >= 1
                        and counter(text, "meshscope_otlp_export_findings_queued") == 0
                        and (counter(text, "meshscope_otlp_export_metrics_failed_total") or 0) >= 1)

            self.assertTrue(serve.wait_for(counted, 30), metrics_text(serve.url))
            text = metrics_text(serve.url)
            self.assertEqual(counter(text, "meshscope_otlp_export_retries_total"), 0)
            self.assertEqual(counter(text, "meshscope_otlp_export_findings_sent_total"), 0)
            self.assertTrue(serve.wait_for(lambda: "the endpoint refused" in serve.output(), 10), serve.output())
            self.assertIn("(HTTP 400: {\"code\": 3, \"message\": \"bad request\"})", serve.output())
            self.assertTrue(all(h.get("Authorization") == "Bearer from-file" for _, h in endpoint.headers))
        finally:
            if serve is not None:
                serve.close()
            endpoint.close()
            os.unlink(headers.name)

    def test_a_partial_success_counts_the_rejected_records(self):
        endpoint = ScriptedEndpoint([(200, {}, {"partialSuccess": {"rejectedLogRecords": "1",
                                                                   "errorMessage": "too long"}})])
        serve = None
        try:
            serve, _ = self.run_against(endpoint)

            def counted():
                text = metrics_text(serve.url)
                return ((counter(text, "meshscope_otlp_export_findings_failed_total") or 0) >= 1
                        and counter(text, "meshscope_otlp_export_findings_queued") == 0)

            self.assertTrue(serve.wait_for(counted, 30), metrics_text(serve.url))
            logs = [r for r in endpoint.received if r[0] == "/v1/logs"]
            records = sum(len(s["logRecords"]) for _, _, b, _ in logs for r in b["resourceLogs"] for s in r["scopeLogs"])
            text = metrics_text(serve.url)
            # Each request had one of its records rejected: the others count as sent.
            self.assertEqual(counter(text, "meshscope_otlp_export_findings_failed_total"), len(logs))
            self.assertEqual(counter(text, "meshscope_otlp_export_findings_sent_total"), records - len(logs))
        finally:
            if serve is not None:
                serve.close()
            endpoint.close()


class BadExportUrlTest(unittest.TestCase):
    def run_serve(self, *args):
        return subprocess.run([BIN, "serve", "--listen", "127.0.0.1:0", "--db", os.devnull, *args],
                              capture_output=True, text=True, timeout=30)

    def test_bad_values_are_usage_errors(self):
        hint = ("hint: meshscope serve --otlp-export http://agent:4318 [--otlp-interval S] [--otlp-timeout S] "
                "[--otlp-header 'Name: value' ... | --otlp-header-file FILE]\n")
        bad_headers = tempfile.NamedTemporaryFile("w", suffix=".headers", delete=False)
        bad_headers.write("Authorization: Bearer x\nno colon here\n")
        bad_headers.close()
        self.addCleanup(os.unlink, bad_headers.name)
        cases = [
            (["--otlp-export", "agent:4318"],
             "meshscope serve: --otlp-export must be the http:// or https:// URL of an OpenTelemetry Collector's "
             "OTLP/HTTP endpoint, e.g. http://agent:4318, got 'agent:4318'\n" + hint),
            (["--otlp-export", "http://agent:99999"],
             "meshscope serve: --otlp-export must be the http:// or https:// URL of an OpenTelemetry Collector's "
             "OTLP/HTTP endpoint, e.g. http://agent:4318, got 'http://agent:99999'\n" + hint),
            (["--otlp-export", "http://agent:4318/v1/logs"],
             "meshscope serve: --otlp-export takes the endpoint's base URL (e.g. http://agent:4318): /v1/logs and "
             "/v1/metrics are added to it, got 'http://agent:4318/v1/logs'\n" + hint),
            (["--otlp-export", "http://agent:4318", "--otlp-interval", "0"],
             "meshscope serve: --otlp-interval must be from 0.1 to 86400 seconds\n" + hint),
            (["--otlp-export", "http://agent:4318", "--otlp-timeout", "nan"],
             "meshscope serve: --otlp-timeout must be from 0.1 to 86400 seconds\n" + hint),
            (["--otlp-export", "http://agent:4318", "--otlp-header", "Authorization Bearer secret"],
             "meshscope serve: --otlp-header must be 'Name: value' with a name of letters, digits and "
             "!#$%&'*+-.^_`|~ (e.g. 'Authorization: Bearer TOKEN')\n" + hint),
            (["--otlp-export", "http://agent:4318", "--otlp-header-file", "/nonexistent/headers"],
             "meshscope serve: cannot read --otlp-header-file /nonexistent/headers\n" + hint),
            (["--otlp-export", "http://agent:4318", "--otlp-header-file", bad_headers.name],
             f"meshscope serve: {bad_headers.name}:2: --otlp-header must be 'Name: value' with a name of letters, "
             "digits and !#$%&'*+-.^_`|~ (e.g. 'Authorization: Bearer TOKEN')\n" + hint),
        ]
        for args, message in cases:
            with self.subTest(args=args):
                out = self.run_serve(*args)
                self.assertEqual((out.returncode, out.stderr, out.stdout), (2, message, ""))
        out = self.run_serve("--otlp-interval", "5")
        self.assertEqual(out.returncode, 2)
        self.assertIn("--otlp-interval requires --otlp-export", out.stderr)


if __name__ == "__main__":
    unittest.main()
