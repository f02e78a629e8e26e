"""OTLP/HTTP JSON logs: `meshscope serve`'s POST /v1/logs against requests written here by hand from the OTLP spec
(opentelemetry-proto's JSON encoding: camelCase names, int64 as decimal strings, AnyValue attributes), its answers
(ExportLogsServiceResponse, partial success, google.rpc.Status), and the Python reporter with MESHSCOPE_PROTOCOL=otlp
against the same real collector (docs/protocol.md, "OTLP logs")."""

import http.client
import json
import os
import time
import unittest

import support  # noqa: F401  (puts clients/python on sys.path)
from meshscope_report.config import Config
from meshscope_report.identity import identity_from_env
from meshscope_report.reporter import Reporter
from meshscope_report.transport import OtlpTransport, otlp_logs_request
from meshscope_serve import MeshScopeServe

BIN = os.environ.get("MESHSCOPE_BIN", "")


def s(value):
    return {"stringValue": value}


def i(value):
    return {"intValue": str(value)}


def attrs(**pairs):
    return [{"key": key.replace("__", "."), "value": value} for key, value in pairs.items()]


def request(records, **resource):
    """One resourceLogs with these resource attributes (host__name is host.name) and log records."""
    return {"resourceLogs": [{"resource": {"attributes": attrs(**resource)},
                              "scopeLogs": [{"scope": {"name": "test"}, "logRecords": records}]}]}


def record(phase="launch", status="started", time_unix_nano=None, **more):
    out = {"attributes": attrs(meshscope__phase=s(phase), meshscope__status=s(status), **more)}
    if time_unix_nano is not None:
        out["timeUnixNano"] = time_unix_nano
    return out


def post(serve, body, content_type="application/json", headers=None, path="/v1/logs", method="POST"):
    connection = http.client.HTTPConnection("127.0.0.1", serve.port, timeout=10)
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    all_headers = {"Content-Type": content_type} if content_type else {}
    all_headers.update(headers or {})
    connection.request(method, path, body=data, headers=all_headers)
    response = connection.getresponse()
    answer = response.read()
    connection.close()
    return response.status, json.loads(answer) if answer else None, response


class OtlpLogsEndpoint(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not BIN:
            raise RuntimeError("MESHSCOPE_BIN is not set: ctest passes the meshscope binary")
        cls.serve = MeshScopeServe(BIN)

    @classmethod
    def tearDownClass(cls):
        cls.serve.close()

    def test_one_record_is_one_event(self):
        body = request([record("parallel_state", "done", "1764451200250000000",
                               meshscope__topology={"kvlistValue": {"values": attrs(dp=i(4), cp=i(1), ep=i(2))}},
                               meshscope__groups={"kvlistValue": {"values": attrs(
                                   ep={"arrayValue": {"values": [i(1), i(3)]}})}},
                               meshscope__device=s("cuda:1"))],
                       meshscope__job=s("otlp-one"), meshscope__rank=i(3), meshscope__world_size=i(4),
                       host__name=s("node-7"), process__pid=i(4242), service__name=s("anything"))
        status, answer, _ = post(self.serve, body)
        self.assertEqual((status, answer), (200, {}))
        stored = [{k: v for k, v in e.items() if k != "received"} for e in self.serve.stored_events("otlp-one")]
        self.assertEqual(stored, [{"schema": "meshscope.event/1", "job": "otlp-one", "rank": 3, "world_size": 4,
                                   "phase": "parallel_state", "status": "done", "ts": 1764451200.25,
                                   "host": "node-7", "pid": 4242, "device": "cuda:1",
                                   "topology": {"dp": 4, "cp": 1, "ep": 2}, "groups": {"ep": [1, 3]}}])

    def test_exception_attributes_are_the_error_and_the_record_wins(self):
        body = request([record("parallel_state", "failed", meshscope__rank=i(1),
                               exception__type=s("RuntimeError"), exception__message=s("reinit"))],
                       meshscope__job=s("otlp-error"), meshscope__rank=i(0), meshscope__world_size=i(2))
        self.assertEqual(post(self.serve, body)[0], 200)
        [event] = self.serve.stored_events("otlp-error")
        self.assertEqual((event["rank"], event["error"]), (1, {"type": "RuntimeError", "message": "reinit"}))

    def test_partial_success_names_the_first_refused_record(self):
        good = record()
        no_rank = {"attributes": attrs(meshscope__job=s("otlp-partial"), meshscope__world_size=i(4),
                                       meshscope__phase=s("launch"), meshscope__status=s("started"))}
        body = {"resourceLogs": [
            {"resource": {"attributes": attrs(meshscope__job=s("otlp-partial"), meshscope__rank=i(0),
                                              meshscope__world_size=i(4))},
             "scopeLogs": [{"logRecords": [good, record("ready", "done", meshscope__rank=i(9))]}]},
            {"scopeLogs": [{"logRecords": [no_rank, record("process_group", "done", meshscope__job=s("otlp-partial"),
                                                            meshscope__rank=i(2), meshscope__world_size=i(4))]}]}]}
        status, answer, _ = post(self.serve, body)
        self.assertEqual(status, 200)
        self.assertEqual(answer, {"partialSuccess": {
            "rejectedLogRecords": "2",
            "errorMessage": 'event 1: field "rank" must be less than world_size (4), got 9'}})
        self.assertEqual([(e["rank"], e["phase"]) for e in self.serve.stored_events("otlp-partial")],
                         [(0, "launch"), (2, "process_group")])

    def test_every_record_refused_is_400_with_the_events_api_text(self):
        # The same event on both APIs gets the same text.
        event = {"job": "otlp-400", "rank": 0, "world_size": 2 ** 21, "phase": "launch", "status": "started"}
        status, answer, _ = post(self.serve, event, path="/api/v1/events")
        self.assertEqual((status, answer), (400, {"error": 'event 0: field "world_size" must be at most 1048576'}))
        body = request([record()], meshscope__job=s("otlp-400"), meshscope__rank=i(0),
                       meshscope__world_size=i(2 ** 21))
        status, answer, _ = post(self.serve, body)
        self.assertEqual((status, answer),
                         (400, {"code": 3, "message": 'event 0: field "world_size" must be at most 1048576'}))
        self.assertEqual(post(self.serve, request([record()], meshscope__rank=i(0), meshscope__world_size=i(2)))[1],
                         {"code": 3, "message": 'event 0: field "job" is required'})

    def test_malformed_requests_are_400(self):
        rec = "resourceLogs[0].scopeLogs[0].logRecords[0]"
        for body, message in [
            (b'{"resourceLogs": [', None),
            ([], 'the body must be an OTLP ExportLogsServiceRequest: {"resourceLogs": [...]}'),
            ({"resourceLogs": {}}, 'field "resourceLogs" must be an array'),
            ({"resourceLogs": [{"scopeLogs": [{"logRecords": {}}]}]},
             'field "resourceLogs[0].scopeLogs[0].logRecords" must be an array'),
            (request([{"attributes": [{"key": "meshscope.rank", "value": 3}]}]),
             f'field "{rec}.attributes[0].value" must be an AnyValue: an object with one of stringValue, boolValue, '
             'intValue, doubleValue, arrayValue, kvlistValue, bytesValue'),
            (request([{"attributes": [{"key": "meshscope.rank", "value": {"intValue": "3x"}}]}]),
             f'field "{rec}.attributes[0].value.intValue" must be a 64-bit integer: a string of digits or a number'),
            (request([{"attributes": [{"value": s("x")}]}]),
             f'field "{rec}.attributes[0]" must be {{"key": string, "value": AnyValue}}'),
            (request([{"attributes": [{"key": "k", "value": {"stringValue": "a", "intValue": "1"}}]}]),
             f'field "{rec}.attributes[0].value" must be an AnyValue with one value: it has both stringValue and '
             'intValue'),
            (request([{"timeUnixNano": "-5"}]),
             f'field "{rec}.timeUnixNano" must be an unsigned 64-bit integer: a string of digits or a number'),
        ]:
            with self.subTest(message=message):
                status, answer, _ = post(self.serve, body)
                self.assertEqual(status, 400, answer)
                self.assertEqual(answer["code"], 3)
                if message is None:
                    self.assertTrue(answer["message"].startswith("invalid JSON: parse error"), answer)
                else:
                    self.assertEqual(answer["message"], message)

    def test_an_empty_request_is_a_success(self):
        for body in ({}, {"resourceLogs": []}, {"resourceLogs": [{"scopeLogs": [{"logRecords": []}]}]}):
            self.assertEqual(post(self.serve, body)[:2], (200, {}))

    def test_content_type_and_encoding(self):
        body = request([record()], meshscope__job=s("otlp-ct"), meshscope__rank=i(0), meshscope__world_size=i(1))
        self.assertEqual(post(self.serve, body, "application/json; charset=utf-8")[:2], (200, {}))
        for content_type, headers, message in [
            ("application/x-protobuf", None,
             "OTLP/HTTP protobuf is not supported: send OTLP/HTTP JSON with Content-Type: application/json (the "
             "OpenTelemetry Collector's otlphttp exporter: encoding: json)"),
            ("text/plain", None, 'Content-Type must be application/json (OTLP/HTTP JSON), got "text/plain"'),
            (None, None, "Content-Type must be application/json (OTLP/HTTP JSON), got none"),
            ("application/json", {"Content-Encoding": "gzip"},
             'Content-Encoding "gzip" is not supported: send the body uncompressed (the otlphttp exporter: '
             "compression: none)"),
        ]:
            with self.subTest(content_type=content_type, headers=headers):
                self.assertEqual(post(self.serve, body, content_type, headers)[:2],
                                 (415, {"code": 12, "message": message}))
        status, answer, response = post(self.serve, b"", None, method="GET")
        self.assertEqual((status, answer, response.getheader("Allow")),
                         (405, {"code": 12, "message": "use POST"}, "POST"))

    def test_timestamps_and_numbers_as_strings_or_numbers(self):
        body = request([record(time_unix_nano=1764451200500000000, meshscope__rank={"intValue": 1}),
                        record("process_group", "started", "0", meshscope__rank=i(2),
                               meshscope__ts={"doubleValue": 12.5})],
                       meshscope__job=s("otlp-numbers"), meshscope__world_size=i(4))
        self.assertEqual(post(self.serve, body)[:2], (200, {}))
        stored = {e["rank"]: e for e in self.serve.stored_events("otlp-numbers")}
        self.assertEqual(stored[1]["ts"], 1764451200.5)
        self.assertEqual(stored[2]["ts"], 12.5)  # timeUnixNano 0 is unset; meshscope.ts says it


class OtlpLimits(unittest.TestCase):
    def test_a_token_is_required_as_for_events(self):
        serve = MeshScopeServe(BIN, token="s3cret")
        try:
            body = request([record()], meshscope__job=s("otlp-token"), meshscope__rank=i(0),
                           meshscope__world_size=i(1))
            status, answer, _ = post(serve, body)
            self.assertEqual((status, answer), (401, {"error": "missing or wrong bearer token"}))
            self.assertEqual(post(serve, body, headers={"Authorization": "Bearer s3cret"})[:2], (200, {}))
        finally:
            serve.close()

    def test_admission_answers_503_with_retry_after(self):
        serve = MeshScopeServe(BIN, extra=["--max-jobs", "1"])
        try:
            first = request([record()], meshscope__job=s("otlp-a"), meshscope__rank=i(0), meshscope__world_size=i(1))
            self.assertEqual(post(serve, first)[0], 200)
            second = request([record()], meshscope__job=s("otlp-b"), meshscope__rank=i(0),
                             meshscope__world_size=i(1))
            status, answer, response = post(serve, second)
            self.assertEqual((status, answer), (503, {"code": 14, "message": "collector busy: 1 jobs are live and "
                                                                             "none has finished (--max-jobs)"}))
            self.assertEqual(response.getheader("Retry-After"), "30")
        finally:
            serve.close()


class ReporterSpeaksOtlp(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not BIN:
            raise RuntimeError("MESHSCOPE_BIN is not set: ctest passes the meshscope binary")
        cls.serve = MeshScopeServe(BIN)

    @classmethod
    def tearDownClass(cls):
        cls.serve.close()

    def reporter(self, url, job, rank=3, **env):
        settings = {"MESHSCOPE_URL": url, "MESHSCOPE_JOB": job, "MESHSCOPE_PROTOCOL": "otlp", "RANK": str(rank),
                    "WORLD_SIZE": "4", "LOCAL_RANK": str(rank), **env}
        config = Config.from_env(settings)
        reporter = Reporter(config, identity_from_env(settings), clock=time.time, monotonic=time.time,
                            start_thread=False, warn=lambda message: None)
        reporter.activate()
        return reporter

    def test_settings(self):
        config = Config.from_env({"MESHSCOPE_URL": "http://127.0.0.1:4318/", "MESHSCOPE_PROTOCOL": "OTLP"})
        self.assertEqual((config.protocol, config.events_url), ("otlp", "http://127.0.0.1:4318/v1/logs"))
        self.assertEqual(Config.from_env({"MESHSCOPE_URL": "http://h:7077"}).events_url, "http://h:7077/api/v1/events")
        self.assertIsNone(Config.from_env({"MESHSCOPE_URL": "http://h:4318", "MESHSCOPE_PROTOCOL": "grpc"}))

    def test_the_request_follows_the_otlp_json_encoding(self):
        body = otlp_logs_request([{"phase": "device_mesh", "status": "done", "ts": 1764451201.123456,
                                   "mesh": {"name": "data", "dim_names": ["dp"], "shape": [4]}}],
                                 {"job": "j", "rank": 3, "world_size": 4, "host": "n", "pid": 7})
        [resource_logs] = body["resourceLogs"]
        self.assertEqual(resource_logs["resource"]["attributes"], [
            {"key": "service.name", "value": s("meshscope-report")}, {"key": "meshscope.job", "value": s("j")},
            {"key": "meshscope.rank", "value": i(3)}, {"key": "meshscope.world_size", "value": i(4)},
            {"key": "host.name", "value": s("n")}, {"key": "process.pid", "value": i(7)}])
        [rec] = resource_logs["scopeLogs"][0]["logRecords"]
        self.assertEqual(rec["timeUnixNano"], "1764451201123456001")  # the double's exact value, in ns
        self.assertEqual(rec["attributes"][2], {"key": "meshscope.mesh", "value": {"kvlistValue": {"values": [
            {"key": "name", "value": s("data")},
            {"key": "dim_names", "value": {"arrayValue": {"values": [s("dp")]}}},
            {"key": "shape", "value": {"arrayValue": {"values": [i(4)]}}}]}}})

    def test_a_rank_reports_through_otlp(self):
        reporter = self.reporter(self.serve.url, "otlp-reporter")
        self.assertIsInstance(reporter._transport, OtlpTransport)
        ts = time.time()
        reporter.emit("launch", "started")
        reporter.emit("parallel_state", "done", {"topology": {"dp": 4, "cp": 1, "ep": 2},
                                                 "groups": {"ep": [2, 3], "dp": [0, 1, 2, 3]}})
        reporter.emit("ready", "done")
        reporter.step(time.time())
        self.assertEqual((reporter.sent, reporter.rejected), (3, 0), reporter._transport.last_error)
        [rank] = [r for r in self.serve.ranks("otlp-reporter") if r["rank"] == 3]
        self.assertEqual((rank["state"], rank["phase"], rank["topology"]), ("ready", "ready", {"dp": 4, "cp": 1,
                                                                                               "ep": 2}))
        stored = self.serve.stored_events("otlp-reporter")
        self.assertEqual([e["phase"] for e in stored], ["launch", "parallel_state", "ready"])
        self.assertEqual(stored[1]["groups"], {"ep": [2, 3], "dp": [0, 1, 2, 3]})
        self.assertAlmostEqual(stored[0]["ts"], ts, delta=5)
        self.assertEqual(stored[0]["pid"], os.getpid())

    def test_a_partial_success_counts_the_refused_events(self):
        reporter = self.reporter(self.serve.url, "otlp-reporter-partial", rank=1)
        reporter.emit("launch", "started")
        reporter.emit("parallel_state", "done", {"topology": {"dp": 0, "cp": 1, "ep": 1}})
        reporter.step(time.time())
        self.assertEqual((reporter.sent, reporter.rejected), (1, 1))
        self.assertIn('event 1: field "topology.dp" must be a positive integer', reporter._transport.last_error)

    def test_lifecycle_events_wait_and_heartbeats_go_while_the_collector_sheds(self):
        shedding = MeshScopeServe(BIN, extra=["--shed-all-at", "0"])
        try:
            reporter = self.reporter(shedding.url, "otlp-shed")
            reporter.emit("launch", "started")
            reporter.emit("heartbeat", "done")
            reporter.step(time.time())
            self.assertEqual(reporter.sent, 0)
            self.assertEqual(reporter._transport.last_status, 503)
            self.assertEqual(reporter._transport.retry_after, 1.0)
            self.assertEqual((reporter.pending(), reporter.heartbeats_refused), (1, 1))
            self.assertEqual(reporter._buffer.take(10)[0]["phase"], "launch")
        finally:
            shedding.close()


if __name__ == "__main__":
    unittest.main()
