"""`meshscope relay` (in front of a real `meshscope serve`) against the same hostile requests as the collector:
the exact answer, the process lives, its memory stays bounded. Loopback only; every wait is bounded."""

import json
import unittest

import hostile
from hostile import exchange, get, request

CHUNK = "chunk extensions or trailers larger than 65536 bytes"
CODING = 'Transfer-Encoding other than "chunked" is not supported: send chunked or Content-Length'
DEPTH = "invalid JSON: nested deeper than 64 levels"
MIB = 1024


class RelayUnderAttack(unittest.TestCase):
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

    def assert_error(self, answer, status, message):
        self.assertEqual(answer.status, status, answer)
        self.assertEqual(answer.json(), {"error": message})

    def chunked(self, chunks, trailer=b""):
        return (b"POST /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks +
                b"0\r\n" + trailer + b"\r\n")

    def test_chunk_extensions_and_trailers_are_bounded(self):
        body = json.dumps(hostile.event(job="relayed")).encode()
        size = b"%x" % len(body)
        ok = exchange(self.port, self.chunked(size + b";a=b\r\n" + body + b"\r\n", b"X-Sum: 1\r\n"))
        self.assertEqual(ok.status, 200, ok)
        self.assert_error(exchange(self.port, self.chunked(size + b";" + b"e" * (20 << 20) + b"\r\n" + body + b"\r\n")),
                          400, CHUNK)
        self.assert_error(exchange(self.port, self.chunked(b"", b"X-Fill: " + b"t" * (20 << 20) + b"\r\n")), 400, CHUNK)

    def test_transfer_codings_other_than_chunked_are_refused(self):
        for coding in (b"xchunked", b"gzip, chunked", b"identity"):
            with self.subTest(coding=coding):
                raw = (b"POST /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: " + coding +
                       b"\r\n\r\n" + json.dumps(hostile.event(job="smuggle")).encode())
                self.assert_error(exchange(self.port, raw), 501, CODING)

    def test_head_is_get_without_a_body(self):
        head = exchange(self.port, request(self.port, "HEAD", "/api/v1/health"), head=True)
        self.assertEqual(head.status, 200, head)
        self.assertEqual(head.headers["content-length"], str(len('{"status":"ok"}')))
        self.assertEqual(head.body, b"")

    def test_other_web_pages_are_refused(self):
        body = json.dumps(hostile.event(job="via-relay-from-a-page"))
        foreign = exchange(self.port, request(self.port, "POST", "/api/v1/events", body,
                                              {"Origin": "http://127.0.0.2:8000", "Content-Type": "text/plain"}))
        self.assert_error(foreign, 403, 'Origin "http://127.0.0.2:8000" is not this collector\'s: requests from other '
                                        "web pages are refused")
        rebound = get(self.port, "/api/v1/health", host="evil.example")
        self.assert_error(rebound, 403, 'Host "evil.example" is not a name this collector answers to: give '
                                        "--allow-host evil.example to serve it")
        self.assertEqual(get(self.serve.port, "/api/v1/jobs/via-relay-from-a-page").status, 404)

    def test_a_deep_batch_from_below(self):
        body = '{"bodies": ' + "[" * 100000 + "]" * 100000 + "}"
        self.assert_error(exchange(self.port, request(self.port, "POST", "/api/v1/batches", body)), 400, DEPTH)
        # A deep body inside a well-formed batch reaches the collector, which refuses it alone.
        batch = json.dumps({"bodies": ["[" * 70000 + "]" * 70000]})
        answer = exchange(self.port, request(self.port, "POST", "/api/v1/batches", batch))
        self.assertEqual(answer.status, 200, answer)
        self.assertEqual(answer.json(), {"results": [{"status": 400, "error": DEPTH}]})


if __name__ == "__main__":
    unittest.main()
