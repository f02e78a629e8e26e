"""`meshscope serve` with its default flags (loopback, no token) against hostile requests: each attack and its
neighbours get their exact answer, the process lives, and its memory stays bounded (docs/collector.md, "Limits and
security"). Loopback only; every wait is bounded."""

import json
import os
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest

import hostile
from hostile import CHUNK, CODING, DEPTH, MIB, deep, exchange, get, post_events, request


def deep_objects(levels):
    return '{"a":' * levels + "1" + "}" * levels


class CollectorUnderAttack(hostile.EngineAttacks, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.serve = hostile.serve(["--missing-after", "600", "--stale-after", "600"])
        cls.port = cls.serve.port
        cls.baseline = hostile.memory_kib(cls.serve)

    @classmethod
    def tearDownClass(cls):
        hostile.stop(cls.serve)

    def tearDown(self):
        # Whatever the test sent, the collector still answers, and its peak memory stayed bounded: the attacks
        # below used to take it past 1 GB (chunk extensions, a claimed world of 2^20 ranks) or kill it.
        self.assertIsNone(self.serve.poll(), hostile.stderr_of(self.serve))
        self.assertEqual(get(self.port, "/api/v1/health").status, 200)
        peak = hostile.memory_kib(self.serve, "VmHWM")
        self.assertLess(peak - self.baseline, 256 * MIB, f"peak {peak} KiB, at start {self.baseline} KiB")

    # -- nesting ------------------------------------------------------------------------------------------------

    def tour_step_with_task(self):
        for tour in json.loads(get(self.port, "/api/v1/tours").body)["tours"]:
            resolved = json.loads(get(self.port, f"/api/v1/tours/{tour['name']}").body)
            for k, step in enumerate(resolved["steps"], start=1):
                if "task" in step:
                    return tour["name"], k
        self.fail("no shipped tour has a task")

    def test_a_tour_answer_nested_60000_deep(self):
        name, k = self.tour_step_with_task()
        path = f"/api/v1/tours/{name}/steps/{k}/check"
        for answer in (deep_objects(60000), deep(60000)):
            body = '{"answer": ' + answer + "}"
            self.assert_error(exchange(self.port, request(self.port, "POST", path, body)), 400, DEPTH)
        # 63 levels inside {"answer": ...} are 64: parsed, and judged as an answer of the wrong shape.
        shallow = exchange(self.port, request(self.port, "POST", path, '{"answer": ' + deep_objects(63) + "}"))
        self.assertEqual(shallow.status, 400, shallow)
        self.assertNotEqual(shallow.json()["error"], DEPTH)

    def test_every_parser_refuses_deep_nesting(self):
        for path, body in [
            ("/api/v1/events", deep(100000)),
            ("/api/v1/events", json.dumps(hostile.event()) + "\n" + deep(65)),
            ("/api/v1/batches", '{"bodies": ' + deep(65) + "}"),
            ("/api/v1/sandbox", '{"calls": ' + deep(200000) + "}"),
            ("/api/v1/tours/expert-mesh/job", '{"step": ' + deep_objects(65) + "}"),
        ]:
            with self.subTest(path=path, bytes=len(body)):
                answer = exchange(self.port, request(self.port, "POST", path, body))
                self.assertEqual(answer.status, 400, answer)
                self.assertTrue(answer.json()["error"].endswith(DEPTH), answer)

    def test_a_deep_body_inside_a_batch_is_refused_alone(self):
        bodies = [json.dumps(hostile.event(job="batch-ok")), deep(70000)]
        answer = exchange(self.port, request(self.port, "POST", "/api/v1/batches", json.dumps({"bodies": bodies})))
        self.assertEqual(answer.status, 200, answer)
        self.assertEqual(answer.json(), {"results": [{"status": 200, "accepted": 1}, {"status": 400, "error": DEPTH}]})

    # -- OTLP logs (POST /v1/logs) ------------------------------------------------------------------------------

    def otlp(self, body, headers=None):
        return exchange(self.port, request(self.port, "POST", "/v1/logs", body,
                                           dict({"Content-Type": "application/json"}, **(headers or {}))))

    def test_otlp_logs_are_bounded_like_events(self):
        # kvlistValues nested past 64 JSON levels, a request deeper still, more records than a body may hold, and a
        # body past --max-body: the same bounds and texts as POST /api/v1/events, in OTLP's Status body.
        nested = '{"stringValue": "x"}'
        for _ in range(20):
            nested = '{"kvlistValue": {"values": [{"key": "k", "value": ' + nested + "}]}}"
        record = '{"attributes": [{"key": "meshscope.plan", "value": ' + nested + "}]}"
        deep_record = '{"resourceLogs": [{"scopeLogs": [{"logRecords": [' + record + "]}]}]}"
        for body in (deep_record, '{"resourceLogs": ' + deep(100000) + "}"):
            with self.subTest(bytes=len(body)):
                answer = self.otlp(body)
                self.assertEqual((answer.status, answer.json()), (400, {"code": 3, "message": DEPTH}), answer)
        many = '{"resourceLogs": [{"scopeLogs": [{"logRecords": [' + ",".join(["{}"] * 100001) + "]}]}]}"
        self.assertLess(len(many), 1 << 20)
        answer = self.otlp(many)
        self.assertEqual((answer.status, answer.json()),
                         (400, {"code": 3, "message": "the body holds more than 100000 log records"}))
        big = '{"resourceLogs": [], "pad": "' + "x" * (2 << 20) + '"}'
        self.assert_error(self.otlp(big), 413, "request body larger than 1048576 bytes")
        # A page of another origin cannot post logs to a collector without a token either.
        foreign = "http://127.0.0.2:8000"
        self.assertEqual(self.otlp("{}", {"Origin": foreign}).status, 403)

    def test_a_claimed_world_through_otlp_costs_what_reported(self):
        world = 1 << 20
        before = hostile.memory_kib(self.serve)
        for n in range(32):
            resource = [{"key": "meshscope.job", "value": {"stringValue": f"otlp-claims-{n}"}},
                        {"key": "meshscope.rank", "value": {"intValue": str(world - 1)}},
                        {"key": "meshscope.world_size", "value": {"intValue": str(world)}}]
            record = {"attributes": [{"key": "meshscope.phase", "value": {"stringValue": "launch"}},
                                     {"key": "meshscope.status", "value": {"stringValue": "started"}}]}
            body = {"resourceLogs": [{"resource": {"attributes": resource},
                                      "scopeLogs": [{"logRecords": [record]}]}]}
            answer = self.otlp(json.dumps(body))
            self.assertEqual((answer.status, answer.json()), (200, {}), answer)
        self.assertEqual(post_events(self.port, [hostile.event("otlp-real", 0, 8)]).status, 200)
        self.assertLess(hostile.memory_kib(self.serve) - before, 16 * MIB)

    # -- imported records (POST /api/v1/jobs/{job}/records, meshscope import) -----------------------------------

    def test_records_are_bounded_like_events(self):
        path = "/api/v1/jobs/hostile-records/records"
        for body in (deep(100000), deep_objects(65), '{"format": "meshscope.records/1", "findings": ' + deep(65) + "}"):
            with self.subTest(bytes=len(body)):
                self.assert_error(exchange(self.port, request(self.port, "POST", path, body)), 400, DEPTH)
        big = '{"format": "meshscope.records/1", "findings": [], "pad": "' + "x" * (2 << 20) + '"}'
        self.assert_error(exchange(self.port, request(self.port, "POST", path, big)), 413,
                          "request body larger than 1048576 bytes")
        # A page of another origin cannot put records into a collector without a token.
        foreign = "http://127.0.0.2:8000"
        refused = exchange(self.port, request(self.port, "POST", path, '{"format": "meshscope.records/1", "findings": []}',
                                              {"Origin": foreign, "Content-Type": "text/plain"}))
        self.assert_error(refused, 403,
                          f'Origin "{foreign}" is not this collector\'s: requests from other web pages are refused')
        # None of it made a job.
        self.assertEqual(get(self.port, "/api/v1/jobs/hostile-records").status, 404)

    def test_hostile_record_strings_stay_text(self):
        # Control characters, markup and quotes from a file are kept as they were sent and given back as JSON text.
        message = '<img src=x onerror=alert(1)>\u001b[31m"\n'
        doc = {"format": "meshscope.records/1",
               "findings": [{"kind": "rank_error", "ranks": [0], "message": message, "sources": ["<b>x</b>"]}]}
        path = "/api/v1/jobs/hostile-text/records"
        self.assertEqual(exchange(self.port, request(self.port, "POST", path, json.dumps(doc))).status, 200)
        findings = json.loads(get(self.port, "/api/v1/jobs/hostile-text/findings").body)["findings"]
        self.assertEqual(findings[0]["message"], message)
        self.assertEqual(findings[0]["from"], "From: <b>x</b>")

    # -- chunked bodies, transfer codings, HEAD -----------------------------------------------------------------

    def chunked(self, chunks, trailer=b"", headers=b""):
        return (b"POST /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n" + headers +
                b"\r\n" + chunks + b"0\r\n" + trailer + b"\r\n")

    def test_chunk_extensions_and_trailers_are_bounded(self):
        body = json.dumps(hostile.event(job="chunked")).encode()
        size = b"%x" % len(body)
        # A small extension and a small trailer are HTTP: accepted.
        ok = exchange(self.port, self.chunked(size + b";name=value\r\n" + body + b"\r\n", b"X-Checksum: 1\r\n"))
        self.assertEqual(ok.status, 200, ok)
        # One chunk line of 20 MiB of extensions, trailers of 20 MiB: refused once 64 KiB are buffered.
        endless = b";" + b"e" * (20 << 20)
        self.assert_error(exchange(self.port, self.chunked(size + endless + b"\r\n" + body + b"\r\n")), 400, CHUNK)
        self.assert_error(exchange(self.port, self.chunked(b"", b"X-Fill: " + b"t" * (20 << 20) + b"\r\n")), 400,
                          CHUNK)
        many = b"".join(b"X-T%d: %s\r\n" % (i, b"v" * 1000) for i in range(20000))
        self.assert_error(exchange(self.port, self.chunked(size + b"\r\n" + body + b"\r\n", many)), 400, CHUNK)
        # Just under the bound: a 60,000-byte extension is read (then the body is judged as usual).
        near = exchange(self.port, self.chunked(size + b";" + b"e" * 60000 + b"\r\n" + body + b"\r\n"))
        self.assertEqual(near.status, 200, near)

    def test_transfer_codings_other_than_chunked_are_refused(self):
        body = json.dumps(hostile.event(job="smuggle")).encode()
        for coding in (b"xchunked", b"gzip, chunked", b"chunked, gzip", b"identity", b"gzip"):
            with self.subTest(coding=coding):
                raw = (b"POST /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: " + coding +
                       b"\r\n\r\n" + body)
                self.assert_error(exchange(self.port, raw), 501, CODING)
        two = (b"POST /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: gzip\r\n"
               b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
        self.assert_error(exchange(self.port, two), 501, CODING)
        # The smuggled "second request" was never read as one: no job named smuggle.
        self.assertEqual(get(self.port, "/api/v1/jobs/smuggle").status, 404)
        # Chunked in any case is chunked.
        upper = (b"POST /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: Chunked\r\n\r\n" +
                 b"%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n")
        self.assertEqual(exchange(self.port, upper).status, 200)

    def test_head_is_get_without_a_body(self):
        with hostile.connect(self.port) as sock:
            sock.sendall(request(self.port, "HEAD", "/api/v1/health") + request(self.port, "GET", "/api/v1/health"))
            head = hostile.read_answer(sock, head=True)
            self.assertEqual(head.status, 200, head)
            self.assertEqual(head.headers["content-length"], str(len('{"status":"ok"}')))
            # The next answer on the connection starts right after HEAD's headers: no body was written.
            data = sock.leftover
            while b'{"status":"ok"}' not in data:
                chunk = sock.recv(65536)
                self.assertTrue(chunk, data)
                data += chunk
            self.assertTrue(data.startswith(b"HTTP/1.1 200"), data[:80])
        self.assertEqual(exchange(self.port, request(self.port, "HEAD", "/api/v1/events"), head=True).status, 405)

    # -- per-job state ------------------------------------------------------------------------------------------

    def test_a_claimed_world_of_2_20_ranks_costs_what_reported(self):
        world = 1 << 20
        before = hostile.memory_kib(self.serve)
        self.assertEqual(post_events(self.port, [hostile.event("huge", world - 1, world)]).status, 200)
        cpu = hostile.cpu_seconds(self.serve)
        page = get(self.port, "/api/v1/jobs/huge/ranks?limit=1")
        self.assertEqual(page.status, 200, page)
        self.assertEqual(page.json()["total"], world)
        self.assertEqual([r["rank"] for r in page.json()["ranks"]], [0])
        tail = get(self.port, f"/api/v1/jobs/huge/ranks?offset={world - 2}&limit=10").json()
        self.assertEqual([(r["rank"], r["state"]) for r in tail["ranks"]],
                         [(world - 2, "pending"), (world - 1, "initializing")])
        # Without a limit: at most 131,072 rows (the largest job relays carry); the rest in pages.
        whole = get(self.port, "/api/v1/jobs/huge/ranks").json()
        self.assertEqual((len(whole["ranks"]), whole["total"]), (131072, world))
        # CPU, not wall time (the machine may be shared): materializing the claimed world cost 7-9 s of it, during
        # which no acknowledgement went out; three pages of what reported cost a small part of one second.
        spent = hostile.cpu_seconds(self.serve) - cpu
        print(f"three pages of a 2^20-rank job: {spent:.2f} s of the collector's CPU", file=sys.stderr)
        self.assertLess(spent, 2.0)
        self.assertEqual(post_events(self.port, [hostile.event("huge", 0, world)]).status, 200)
        self.assertLess(hostile.memory_kib(self.serve) - before, 96 * MIB)

    def test_claimed_worlds_never_block_another_job(self):
        # Jobs that claim the largest world and report one rank each (the highest, so that a table indexed by rank
        # would cost the whole world) are admitted by what reported: a real 8-rank job beside them is served, and
        # together they cost about what their few ranks cost.
        world = 1 << 20
        before = hostile.memory_kib(self.serve)
        for n in range(64):
            answer = post_events(self.port, [hostile.event(f"claims-{n}", world - 1 if n % 2 else 0, world)])
            self.assertEqual(answer.status, 200, answer)
        for rank in range(8):
            answer = post_events(self.port, [hostile.event("real-8", rank, 8)])
            self.assertEqual(answer.status, 200, answer)
        summary = get(self.port, "/api/v1/jobs/claims-1").json()
        self.assertEqual((summary["world_size"], summary["ranks_seen"]), (world, 1))
        self.assertEqual(get(self.port, "/api/v1/jobs/real-8").json()["ranks_seen"], 8)
        grown = hostile.memory_kib(self.serve) - before
        print(f"64 jobs claiming 2^20 ranks, one reporting each: {grown} KiB", file=sys.stderr)
        self.assertLess(grown, 24 * MIB)

    def test_seen_ranks_cost_no_more_than_the_world(self):
        # POST /api/v1/batches names ranks a relay heard from ("seen", "held"); anyone on loopback may send one.
        # A job of 4 ranks named with 1.1 million ranks past its world: they cannot be missing, so none is kept.
        self.assertEqual(post_events(self.port, [hostile.event("heard", 0, 4)]).status, 200)
        before = hostile.memory_kib(self.serve)
        for n in range(17):
            ranks = list(range((1 << 40) + n * 65000, (1 << 40) + (n + 1) * 65000))
            body = json.dumps({"bodies": [], "seen": {"heard": ranks}, "held": {"heard": [4, 5, 1 << 62]}})
            self.assertLess(len(body), 1 << 20)
            answer = exchange(self.port, request(self.port, "POST", "/api/v1/batches", body))
            self.assertEqual((answer.status, answer.json()), (200, {"results": []}), answer)
        # A query runs on the monitor thread after the "seen" it was handed before: all of them are taken now.
        self.assertEqual(get(self.port, "/api/v1/jobs/heard/ranks?offset=3").json()["ranks"][0]["state"], "pending")
        self.assertLess(hostile.memory_kib(self.serve) - before, 24 * MIB)

    def test_numbers_out_of_range(self):
        for extra, message in [
            ({"ts": 1e300}, 'event 0: field "ts" must be at most 10000000000'),
            ({"pid": 1 << 63}, 'event 0: field "pid" must be at most 2147483647'),
            ({"local_rank": 1 << 20}, 'event 0: field "local_rank" must be at most 1048575'),
        ]:
            with self.subTest(extra=extra):
                self.assert_error(post_events(self.port, [hostile.event(job="ranges", **extra)]), 400, message)
        self.assertEqual(post_events(self.port, [hostile.event(job="ranges", ts=1.8e9, pid=(1 << 31) - 1)]).status, 200)

    # -- browsers -----------------------------------------------------------------------------------------------

    def test_other_web_pages_are_refused(self):
        port = self.port
        foreign = "http://127.0.0.2:8000"
        body = json.dumps(hostile.event(job="from-a-page"))
        refused = exchange(port, request(port, "POST", "/api/v1/events", body,
                                         {"Origin": foreign, "Content-Type": "text/plain"}))
        self.assert_error(refused, 403,
                          f'Origin "{foreign}" is not this collector\'s: requests from other web pages are refused')
        for origin in ("null", "http://127.0.0.1:1", f"http://127.0.0.1:{port}.evil.example", "127.0.0.1"):
            with self.subTest(origin=origin):
                answer = exchange(port, request(port, "GET", "/api/v1/jobs", headers={"Origin": origin}))
                self.assertEqual(answer.status, 403, answer)
        upgrade = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
                   "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Origin": foreign}
        self.assertEqual(exchange(port, request(port, "GET", "/api/v1/stream", headers=upgrade)).status, 403)
        # DNS rebinding: a page's own name pointed at 127.0.0.1.
        rebound = get(port, "/api/v1/jobs", host=f"evil.example:{port}")
        self.assert_error(rebound, 403, f'Host "evil.example:{port}" is not a name this collector answers to: '
                                        "give --allow-host evil.example to serve it")
        self.assertEqual(get(port, "/api/v1/jobs/from-a-page").status, 404)
        # Its own origin, loopback names, and clients that send no Origin are served.
        same = exchange(port, request(port, "POST", "/api/v1/events", body, {"Origin": f"http://127.0.0.1:{port}"}))
        self.assertEqual(same.status, 200, same)
        for host in (f"localhost:{port}", "LOCALHOST", f"127.0.0.1:{port}", f"127.9.8.7:{port}", f"[::1]:{port}"):
            with self.subTest(host=host):
                self.assertEqual(get(port, "/api/v1/health", host=host).status, 200)
        self.assertEqual(exchange(port, b"GET /api/v1/health HTTP/1.0\r\n\r\n").status, 200)  # no Host at all
        upgrade["Origin"] = f"http://127.0.0.1:{port}"
        self.assertEqual(exchange(port, request(port, "GET", "/api/v1/stream", headers=upgrade)).status, 101)


class CollectorLimits(unittest.TestCase):
    """Flags and faults that need a collector of their own."""

    def assert_error(self, answer, status, message):
        self.assertEqual(answer.status, status, answer)
        self.assertEqual(answer.json(), {"error": message})

    def test_allow_host(self):
        serve = hostile.serve(["--allow-host", "head.example", "--allow-host", "[fd00::1]"])
        try:
            self.assertEqual(get(serve.port, "/api/v1/health", host=f"head.example:{serve.port}").status, 200)
            self.assertEqual(get(serve.port, "/api/v1/health", host="[fd00::1]:7077").status, 200)
            self.assertEqual(get(serve.port, "/api/v1/health", host="other.example").status, 403)
        finally:
            hostile.stop(serve)

    def test_a_token_decides_alone(self):
        serve = hostile.serve(["--token", "s3cret"])
        try:
            answer = get(serve.port, "/api/v1/jobs", {"Authorization": "Bearer s3cret", "Origin": "https://dash.example"},
                         host="dash.example")
            self.assertEqual(answer.status, 200, answer)
            self.assertEqual(get(serve.port, "/api/v1/jobs", host="dash.example").status, 401)
        finally:
            hostile.stop(serve)

    def test_live_jobs_are_capped_and_finished_ones_leave_first(self):
        serve = hostile.serve(["--max-jobs", "8"])
        port = serve.port
        try:
            for n in range(8):
                self.assertEqual(post_events(port, [hostile.event(f"job-{n}", 0, 1)]).status, 200)
            refused = post_events(port, [hostile.event("job-8", 0, 1)])
            self.assert_error(refused, 503, "collector busy: 8 jobs are live and none has finished (--max-jobs)")
            self.assertEqual(refused.headers["retry-after"], "30")
            # Many new jobs in one body: refused as one, nothing stored.
            crowd = post_events(port, [hostile.event(f"crowd-{n}", 0, 1) for n in range(5000)])
            self.assertEqual(crowd.status, 503, crowd)
            # job-3's only rank exits: the next new job takes its place; job-3 stays in the history.
            self.assertEqual(post_events(port, [hostile.event("job-3", 0, 1, "exit", "done")]).status, 200)
            self.assertEqual(post_events(port, [hostile.event("job-8", 0, 1)]).status, 200)
            self.assertEqual(get(port, "/api/v1/jobs/job-3").status, 404)
            self.assertEqual(get(port, "/api/v1/jobs/job-8").status, 200)
            self.assertEqual(len(get(port, "/api/v1/jobs").json()["jobs"]), 8)
            export = subprocess.run([hostile.BIN, "export", "--db", serve.db, "--job", "job-3"], capture_output=True,
                                    text=True, timeout=60, env=hostile.ENV)
            self.assertEqual(export.returncode, 0, export.stderr)
            self.assertIn('"phase":"exit"', export.stdout)
            self.assertLess(len(get(port, "/metrics").body), 64 * 1024)
        finally:
            hostile.stop(serve)

    def test_the_ranks_that_report_are_capped_not_the_worlds_claimed(self):
        serve = hostile.serve(["--max-ranks", "100"])
        port = serve.port
        ranks = lambda job, first, count, world, *phase: [hostile.event(job, r, world, *phase)
                                                          for r in range(first, first + count)]
        busy = "collector busy: the live jobs' reporting ranks would pass 100 and none has finished (--max-ranks)"
        try:
            self.assertEqual(post_events(port, ranks("sixty", 0, 60, 60)).status, 200)
            refused = post_events(port, ranks("fifty", 0, 50, 50))
            self.assert_error(refused, 503, busy)
            self.assertEqual(refused.headers["retry-after"], "30")
            # A world of 2^20 claimed by one reporting rank costs one rank; twice is still one.
            for _ in range(2):
                self.assertEqual(post_events(port, [hostile.event("claims", (1 << 20) - 1, 1 << 20)]).status, 200)
            # A known job's ranks new to it count; its heartbeats and repeated ranks do not.
            self.assert_error(post_events(port, ranks("sixty", 60, 40, 101)), 503, busy)
            self.assertEqual(post_events(port, ranks("sixty", 0, 60, 60, "heartbeat", "done")).status, 200)
            self.assertEqual(post_events(port, ranks("forty", 0, 39, 40)).status, 200)
            self.assert_error(post_events(port, [hostile.event("one-more", 0, 1)]), 503, busy)
            # sixty finishes: fifty takes its place.
            self.assertEqual(post_events(port, ranks("sixty", 0, 60, 60, "exit", "done")).status, 200)
            self.assertEqual(post_events(port, ranks("fifty", 0, 50, 50)).status, 200)
            self.assertEqual(get(port, "/api/v1/jobs/sixty").status, 404)
            self.assertEqual(get(port, "/api/v1/jobs/claims").json()["ranks_seen"], 1)
        finally:
            hostile.stop(serve)

    def test_the_missing_rank_finding_of_a_claimed_world_names_the_lowest_1024(self):
        serve = hostile.serve(["--missing-after", "0.2"])
        port = serve.port
        world = 1 << 20
        try:
            self.assertEqual(post_events(port, [hostile.event("claims", 5, world)]).status, 200)

            def missing():
                found = get(port, "/api/v1/jobs/claims/findings").json()["findings"]
                return next((f for f in found if f["kind"] == "missing_rank"), None)

            finding = hostile.wait_until(missing)
            self.assertIsNotNone(finding)
            self.assertEqual(finding["ranks"], list(range(0, 5)) + list(range(6, 1025)))
            self.assertTrue(finding["message"].startswith(f"{world - 1} of {world} ranks never reported within "),
                            finding["message"])
            self.assertTrue(finding["message"].endswith(": ranks 0-4, 6-1024 and 1047551 more"), finding["message"])
            # A named missing rank reports: one fewer, and the next tick names the next lowest.
            self.assertEqual(post_events(port, [hostile.event("claims", 0, world)]).status, 200)
            finding = hostile.wait_until(lambda: (f := missing()) and f["ranks"][-1] == 1025 and f)
            self.assertEqual(finding["ranks"], list(range(1, 5)) + list(range(6, 1026)))
            self.assertTrue(finding["message"].startswith(f"{world - 2} of {world} ranks"), finding["message"])
            self.assertTrue(finding["message"].endswith(": ranks 1-4, 6-1025 and 1047550 more"), finding["message"])
        finally:
            hostile.stop(serve)

    def test_a_store_that_cannot_write_answers_503_with_retry_after(self):
        serve = hostile.serve()
        port = serve.port
        try:
            self.assertEqual(post_events(port, [hostile.event("before", 0, 1)]).status, 200)
            # Another process holds the write lock past the collector's busy timeout (5 s): as good as a read-only
            # or full disk for the collector, and possible as root, where file modes do not stop a write.
            locker = sqlite3.connect(serve.db, timeout=1)
            locker.execute("BEGIN EXCLUSIVE")
            try:
                answer = post_events(port, [hostile.event("during", 0, 1)])
            finally:
                locker.rollback()
                locker.close()
            self.assertEqual(answer.status, 503, answer)
            self.assertEqual(answer.headers.get("retry-after"), "5")
            self.assertEqual(answer.json(), {"error": "cannot store events: database is locked"})
            self.assertTrue(hostile.wait_until(lambda: "cannot store events: database is locked" in
                                               hostile.stderr_of(serve), 10), hostile.stderr_of(serve))
            self.assertIn("answering 503 with Retry-After: 5", hostile.stderr_of(serve))
            self.assertEqual(post_events(port, [hostile.event("after", 0, 1)]).status, 200)
        finally:
            hostile.stop(serve)

    def test_a_read_only_database_answers_503_with_retry_after(self):
        directory = tempfile.TemporaryDirectory(prefix="meshscope-hostile-ro-")
        self.addCleanup(directory.cleanup)
        db = os.path.join(directory.name, "history.db")
        serve = hostile.serve(db=db)
        try:
            self.assertEqual(post_events(serve.port, [hostile.event("before", 0, 1)]).status, 200)
        finally:
            hostile.stop(serve)
        os.chmod(db, 0o444)
        popen = {}
        if os.geteuid() == 0:
            # File modes do not stop root: the collector runs as nobody, who may create the WAL beside the file
            # but not write the file itself.
            os.chmod(directory.name, 0o777)
            popen = {"user": 65534, "group": 65534, "extra_groups": []}
        serve = hostile.serve(db=db, **popen)
        try:
            answer = post_events(serve.port, [hostile.event("during", 0, 1)])
            self.assert_error(answer, 503, "cannot store events: attempt to write a readonly database")
            self.assertEqual(answer.headers.get("retry-after"), "5")
            line = (f"meshscope serve: cannot store events: attempt to write a readonly database ({db}): answering "
                    "503 with Retry-After: 5 until it can store again\n")
            self.assertTrue(hostile.wait_until(lambda: line in hostile.stderr_of(serve), 10), hostile.stderr_of(serve))
            self.assertEqual(get(serve.port, "/api/v1/jobs/before").status, 200)  # the history is read
            self.assertIsNone(serve.poll())
        finally:
            hostile.stop(serve)

    def test_a_full_disk_answers_503_with_retry_after(self):
        # The file size limit (RLIMIT_FSIZE) of the running collector stands in for a full disk: a write past it
        # fails (EFBIG: SQLite says "disk I/O error"; on a full file system, ENOSPC, "database or disk is full").
        # SIGXFSZ, which would end the process first, is ignored, as a service manager's LimitFSIZE= leaves it.
        def ignore_sigxfsz():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

        serve = hostile.serve(preexec_fn=ignore_sigxfsz, restore_signals=False)
        try:
            self.assertEqual(post_events(serve.port, [hostile.event("before", 0, 1)]).status, 200)
            wal = os.path.getsize(serve.db + "-wal")
            _, hard = resource.prlimit(serve.pid, resource.RLIMIT_FSIZE)
            resource.prlimit(serve.pid, resource.RLIMIT_FSIZE, (wal + 10, hard))
            try:
                answer = post_events(serve.port, [hostile.event("during", r, 64, host="x" * 200) for r in range(64)])
            finally:
                resource.prlimit(serve.pid, resource.RLIMIT_FSIZE, (hard, hard))
            self.assert_error(answer, 503, "cannot store events: disk I/O error")
            self.assertEqual(answer.headers.get("retry-after"), "5")
            line = (f"meshscope serve: cannot store events: disk I/O error ({serve.db}): answering 503 with "
                    "Retry-After: 5 until it can store again\n")
            self.assertTrue(hostile.wait_until(lambda: line in hostile.stderr_of(serve), 10), hostile.stderr_of(serve))
            # Room again: the next request is stored, and nothing of the refused one was.
            self.assertEqual(post_events(serve.port, [hostile.event("after", 0, 1)]).status, 200)
            self.assertEqual(get(serve.port, "/api/v1/jobs/during").status, 404)
        finally:
            hostile.stop(serve)
        rows = sqlite3.connect(serve.db).execute("SELECT DISTINCT job FROM events ORDER BY job").fetchall()
        self.assertEqual(rows, [("after",), ("before",)])

    def test_a_damaged_database_is_refused_with_the_way_out(self):
        serve = hostile.serve()
        db = serve.db
        try:
            for n in range(40):
                body = [hostile.event(f"job-{n}", r, 64, host="node-" + "x" * 200) for r in range(64)]
                self.assertEqual(post_events(serve.port, body).status, 200)
        finally:
            hostile.stop(serve)
        size = os.path.getsize(db)
        self.assertGreater(size, 64 * 4096)
        with open(db, "r+b") as f:  # page 10 and the next: garbage where b-tree pages were
            f.seek(9 * 4096)
            f.write(b"\xa5" * 8192)
        run = subprocess.run([hostile.BIN, "serve", "--listen", "127.0.0.1:0", "--db", db], capture_output=True,
                             text=True, timeout=60, env=hostile.ENV)
        self.assertNotEqual(run.returncode, 0)
        self.assertEqual(run.stdout, "")
        self.assertTrue(run.stderr.startswith(f"meshscope serve: cannot open history database {db}: it is damaged "
                                              "(PRAGMA quick_check: "), run.stderr)
        self.assertTrue(run.stderr.endswith(f"): recover what it holds with: sqlite3 {db} .recover | sqlite3 "
                                            f"{db}.recovered, then use --db {db}.recovered\n"), run.stderr)
        export = subprocess.run([hostile.BIN, "export", "--db", db, "--job", "job-1"], capture_output=True, text=True,
                                timeout=60, env=hostile.ENV)
        self.assertNotEqual(export.returncode, 0)
        self.assertIn("it is damaged (PRAGMA quick_check: ", export.stderr)

    def test_a_cut_export_is_refused_by_replay(self):
        serve = hostile.serve()
        try:
            self.assertEqual(post_events(serve.port, [hostile.event("rec", r, 4) for r in range(4)]).status, 200)
        finally:
            hostile.stop(serve)
        export = subprocess.run([hostile.BIN, "export", "--db", serve.db, "--job", "rec"], capture_output=True,
                                text=True, timeout=60, env=hostile.ENV)
        lines = export.stdout.splitlines()
        self.assertEqual(json.loads(lines[0]), {"meshscope_export": "meshscope.export/1", "job": "rec"})
        self.assertEqual(json.loads(lines[-1]), {"meshscope_export_end": {"events": 4}})
        cut = os.path.join(serve.keep[0].name, "cut.jsonl")
        with open(cut, "w") as f:
            f.write("\n".join(lines[:3]) + "\n")  # cut at a line break
        run = subprocess.run([hostile.BIN, "replay", "--speed", "0", "--target", "http://127.0.0.1:1", "--input", cut],
                             capture_output=True, text=True, timeout=60, env=hostile.ENV)
        self.assertEqual(run.returncode, 2)
        self.assertEqual(run.stderr,
                         f"meshscope replay: {cut}: the export ends after line 3 without its end line: it was cut short\n")


if __name__ == "__main__":
    unittest.main()
