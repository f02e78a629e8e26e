"""`meshscope relay` (in front of a real `meshscope serve`) against the same hostile requests as the collector:
the exact answer, the process lives, its memory stays bounded. Loopback only; every wait is bounded."""

import json
import sqlite3
import unittest

import hostile
from hostile import CHUNK, CODING, DEPTH, MIB, deep, exchange, get, post_events, request


class RelayUnderAttack(hostile.EngineAttacks, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.serve = hostile.serve()
        cls.relay = hostile.relay(cls.serve.port)
        cls.port = cls.relay.port
        cls.baseline = hostile.memory_kib(cls.relay)

    @classmethod
    def tearDownClass(cls):
        hostile.stop(cls.relay)
        hostile.stop(cls.serve)

    def tearDown(self):
        for process in (self.relay, self.serve):
            self.assertIsNone(process.poll(), hostile.stderr_of(process))
        self.assertEqual(get(self.port, "/api/v1/health").status, 200)
        peak = hostile.memory_kib(self.relay, "VmHWM")
        self.assertLess(peak - self.baseline, 96 * MIB, f"peak {peak} KiB, at start {self.baseline} KiB")

    def chunked(self, chunks, trailer=b""):
        return (b"POST /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks +
                b"0\r\n" + trailer + b"\r\n")

    def assert_collector_lacks(self, job):
        self.assertEqual(get(self.serve.port, f"/api/v1/jobs/{job}").status, 404)

    def test_chunk_extensions_and_trailers_are_bounded(self):
        body = json.dumps(hostile.event(job="relayed")).encode()
        size = b"%x" % len(body)
        ok = exchange(self.port, self.chunked(size + b";a=b\r\n" + body + b"\r\n", b"X-Sum: 1\r\n"))
        self.assertEqual(ok.status, 200, ok)
        self.assert_error(exchange(self.port, self.chunked(size + b";" + b"e" * (20 << 20) + b"\r\n" + body + b"\r\n")),
                          400, CHUNK)
        self.assert_error(exchange(self.port, self.chunked(b"", b"X-Fill: " + b"t" * (20 << 20) + b"\r\n")), 400, CHUNK)
        many = b"".join(b"X-T%d: %s\r\n" % (i, b"v" * 1000) for i in range(20000))
        self.assert_error(exchange(self.port, self.chunked(size + b"\r\n" + body + b"\r\n", many)), 400, CHUNK)
        # Just under the bound: a 60,000-byte extension is read, and the body goes upstream.
        near = exchange(self.port, self.chunked(size + b";" + b"e" * 60000 + b"\r\n" + body + b"\r\n"))
        self.assertEqual(near.status, 200, near)

    def test_transfer_codings_other_than_chunked_are_refused(self):
        for coding in (b"xchunked", b"gzip, chunked", b"chunked, gzip", b"identity", b"gzip"):
            with self.subTest(coding=coding):
                raw = (b"POST /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: " + coding +
                       b"\r\n\r\n" + json.dumps(hostile.event(job="smuggle")).encode())
                self.assert_error(exchange(self.port, raw), 501, CODING)
        two = (b"POST /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: gzip\r\n"
               b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
        self.assert_error(exchange(self.port, two), 501, CODING)
        # The smuggled "second request" was never read as one: nothing reached the collector.
        self.assert_collector_lacks("smuggle")
        body = json.dumps(hostile.event(job="relayed-upper")).encode()
        upper = (b"POST /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: Chunked\r\n\r\n" +
                 b"%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n")
        self.assertEqual(exchange(self.port, upper).status, 200)

    def test_head_is_get_without_a_body(self):
        head = exchange(self.port, request(self.port, "HEAD", "/api/v1/health"), head=True)
        self.assertEqual(head.status, 200, head)
        self.assertEqual(head.headers["content-length"], str(len('{"status":"ok"}')))
        self.assertEqual(head.body, b"")
        with hostile.connect(self.port) as sock:
            sock.sendall(request(self.port, "HEAD", "/api/v1/health") + request(self.port, "GET", "/api/v1/health"))
            hostile.read_answer(sock, head=True)
            after = hostile.read_answer(sock)  # right after HEAD's headers: no body was written
            self.assertEqual((after.status, after.body), (200, b'{"status":"ok"}'))
        refused = exchange(self.port, request(self.port, "HEAD", "/api/v1/events"), head=True)
        self.assertEqual((refused.status, refused.headers["allow"]), (405, "POST"))

    def test_other_web_pages_are_refused(self):
        body = json.dumps(hostile.event(job="via-relay-from-a-page"))
        foreign = exchange(self.port, request(self.port, "POST", "/api/v1/events", body,
                                              {"Origin": "http://127.0.0.2:8000", "Content-Type": "text/plain"}))
        self.assert_error(foreign, 403, 'Origin "http://127.0.0.2:8000" is not this collector\'s: requests from other '
                                        "web pages are refused")
        rebound = get(self.port, "/api/v1/health", host="evil.example")
        self.assert_error(rebound, 403, 'Host "evil.example" is not a name this collector answers to: give '
                                        "--allow-host evil.example to serve it")
        for origin in ("null", "http://127.0.0.1:1", f"http://127.0.0.1:{self.port}.evil.example", "127.0.0.1"):
            with self.subTest(origin=origin):
                answer = exchange(self.port, request(self.port, "POST", "/api/v1/events", body, {"Origin": origin}))
                self.assertEqual(answer.status, 403, answer)
        upgrade = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
                   "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Origin": "http://127.0.0.2:8000"}
        self.assertEqual(exchange(self.port, request(self.port, "GET", "/api/v1/stream", headers=upgrade)).status, 403)
        batch = json.dumps({"bodies": [body]})
        self.assertEqual(exchange(self.port, request(self.port, "POST", "/api/v1/batches", batch,
                                                     {"Origin": "http://127.0.0.2:8000"})).status, 403)
        self.assert_collector_lacks("via-relay-from-a-page")
        # Its own origin, loopback names, and clients that send no Origin are served.
        same = exchange(self.port, request(self.port, "POST", "/api/v1/events", body,
                                           {"Origin": f"http://127.0.0.1:{self.port}"}))
        self.assertEqual(same.status, 200, same)
        for host in (f"localhost:{self.port}", "LOCALHOST", f"127.9.8.7:{self.port}", f"[::1]:{self.port}"):
            with self.subTest(host=host):
                self.assertEqual(get(self.port, "/api/v1/health", host=host).status, 200)
        self.assertEqual(exchange(self.port, b"GET /api/v1/health HTTP/1.0\r\n\r\n").status, 200)

    def test_a_deep_batch_from_below(self):
        body = '{"bodies": ' + "[" * 100000 + "]" * 100000 + "}"
        self.assert_error(exchange(self.port, request(self.port, "POST", "/api/v1/batches", body)), 400, DEPTH)
        # A deep body inside a well-formed batch reaches the collector, which refuses it alone.
        batch = json.dumps({"bodies": ["[" * 70000 + "]" * 70000]})
        answer = exchange(self.port, request(self.port, "POST", "/api/v1/batches", batch))
        self.assertEqual(answer.status, 200, answer)
        self.assertEqual(answer.json(), {"results": [{"status": 400, "error": DEPTH}]})

    def test_a_rank_body_nested_deep_gets_the_collectors_answer(self):
        # The relay passes a rank's body on as it came; the collector refuses it alone, and the rank gets that.
        self.assert_error(post_raw(self.port, deep(100000)), 400, DEPTH)
        ndjson = json.dumps(hostile.event(job="deep-ndjson")) + "\n" + deep(65)
        self.assert_error(post_raw(self.port, ndjson), 400, "event 1: " + DEPTH)
        self.assert_collector_lacks("deep-ndjson")
        # "seen" nested deep in a batch from below: refused by the relay itself.
        seen = json.dumps({"bodies": []})[:-1] + ', "seen": {"j": ' + deep(70) + "}}"
        self.assert_error(exchange(self.port, request(self.port, "POST", "/api/v1/batches", seen)), 400, DEPTH)

    def test_numbers_out_of_range_get_the_collectors_text(self):
        for extra, message in [
            ({"ts": 1e300}, 'event 0: field "ts" must be at most 10000000000'),
            ({"pid": 1 << 63}, 'event 0: field "pid" must be at most 2147483647'),
            ({"local_rank": 1 << 20}, 'event 0: field "local_rank" must be at most 1048575'),
        ]:
            with self.subTest(extra=extra):
                self.assert_error(post_events(self.port, [hostile.event(job="relay-ranges", **extra)]), 400, message)
        self.assert_collector_lacks("relay-ranges")

    def test_a_claimed_world_of_2_20_ranks_through_the_relay(self):
        world = 1 << 20
        self.assertEqual(post_events(self.port, [hostile.event("relay-huge", world - 1, world)]).status, 200)
        page = get(self.serve.port, "/api/v1/jobs/relay-huge/ranks?limit=1").json()
        self.assertEqual((page["total"], [r["rank"] for r in page["ranks"]]), (world, [0]))
        self.assertEqual(post_events(self.port, [hostile.event("relay-huge", 0, world)]).status, 200)

    def test_seen_ranks_from_below_are_bounded(self):
        # A "relay below" names the ranks it vouches for, and anyone on loopback can claim to be one. 9 batches
        # under 2 MiB name 1.1 million ranks of 5 jobs and 320,000 jobs of one rank each: the relay vouches for at
        # most 1,048,576 ranks in 1,024 jobs, and its memory stays under the ceiling (tearDown).
        for n in range(9):
            if n % 2:
                seen, held = {f"flood-{n}-{j}": [0] for j in range(80000)}, {}
            else:
                first = n * 220000
                seen = {f"flood-{n}": list(range(first, first + 220000))}
                held = {f"flood-{n}": list(range(first, first + 20000))}
            body = json.dumps({"bodies": [], "seen": seen, "held": held}, separators=(",", ":"))
            self.assertLess(len(body), 2 << 20)
            answer = exchange(self.port, request(self.port, "POST", "/api/v1/batches", body))
            self.assertEqual((answer.status, answer.json()), (200, {"results": []}), answer)

def post_raw(port, body):
    return exchange(port, request(port, "POST", "/api/v1/events", body))


class RelayLimits(unittest.TestCase):
    """Flags and faults that need a relay (and a collector) of their own."""

    def assert_error(self, answer, status, message):
        self.assertEqual(answer.status, status, answer)
        self.assertEqual(answer.json(), {"error": message})

    def pair(self, serve_args=(), relay_args=()):
        serve = hostile.serve(list(serve_args))
        self.addCleanup(hostile.stop, serve)
        relay = hostile.relay(serve.port, list(relay_args))
        self.addCleanup(hostile.stop, relay)
        return serve, relay

    def test_allow_host(self):
        _, relay = self.pair(relay_args=["--allow-host", "node7.example", "--allow-host", "[fd00::1]"])
        self.assertEqual(get(relay.port, "/api/v1/health", host=f"node7.example:{relay.port}").status, 200)
        self.assertEqual(get(relay.port, "/api/v1/health", host="[fd00::1]:7078").status, 200)
        self.assert_error(get(relay.port, "/api/v1/health", host="other.example"), 403,
                          'Host "other.example" is not a name this collector answers to: give --allow-host '
                          "other.example to serve it")

    def test_a_token_decides_alone(self):
        _, relay = self.pair(relay_args=["--token", "s3cret"])
        body = json.dumps(hostile.event(job="token-page"))
        answer = exchange(relay.port, request(relay.port, "POST", "/api/v1/events", body,
                                              {"Authorization": "Bearer s3cret", "Origin": "https://dash.example"},
                                              host="dash.example"))
        self.assertEqual(answer.status, 200, answer)
        refused = get(relay.port, "/api/v1/health", host="dash.example")
        self.assert_error(refused, 401, "missing or wrong bearer token")

    def test_the_collectors_job_cap_reaches_the_rank(self):
        serve, relay = self.pair(serve_args=["--max-jobs", "2"])
        for n in range(2):
            self.assertEqual(post_events(relay.port, [hostile.event(f"capped-{n}", 0, 1)]).status, 200)
        refused = post_events(relay.port, [hostile.event("capped-2", 0, 1)])
        self.assert_error(refused, 503, "collector busy: 2 jobs are live and none has finished (--max-jobs)")
        self.assertEqual(refused.headers["retry-after"], "30")
        crowd = post_events(relay.port, [hostile.event(f"crowd-{n}", 0, 1) for n in range(5000)])
        self.assertEqual(crowd.status, 503, crowd)
        self.assertEqual(len(get(serve.port, "/api/v1/jobs").json()["jobs"]), 2)
        self.assertIsNone(relay.poll(), hostile.stderr_of(relay))

    def test_a_store_that_cannot_write_reaches_the_rank_as_503(self):
        serve, relay = self.pair()
        self.assertEqual(post_events(relay.port, [hostile.event("before", 0, 1)]).status, 200)
        locker = sqlite3.connect(serve.db, timeout=1)
        locker.execute("BEGIN EXCLUSIVE")
        try:
            answer = post_events(relay.port, [hostile.event("during", 0, 1)],
                                 headers={"MeshScope-Timeout": "30"})
        finally:
            locker.rollback()
            locker.close()
        self.assert_error(answer, 503, "cannot store events: database is locked")
        self.assertEqual(answer.headers.get("retry-after"), "5")
        # The relay measured a 5 s round trip: a rank that waits 30 s is taken (admission), and stored.
        after = post_events(relay.port, [hostile.event("after", 0, 1)], headers={"MeshScope-Timeout": "30"})
        self.assertEqual(after.status, 200, after)


if __name__ == "__main__":
    unittest.main()
