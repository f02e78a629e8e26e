"""A stand-in collector on the standard library's http.server: accepts POST /api/v1/events (one event, a
JSON array or NDJSON), checks the Bearer token when given one, and keeps every request for the tests.

`answer(events)` (optional) decides each answer the way an overloaded collector would: it returns a status,
a (status, {header: value}) pair, or None to hang up without answering. Every request is recorded with
its events, its answer, and when it arrived and was answered (time.monotonic() and time.time()), so tests
assert on what the collector observed (order, spacing), not on how long the test took."""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeCollector:
    def __init__(self, token=None, status=200, delay_s=0.0, answer=None):
        self.token = token
        self.status = status  # what POSTs answer (after the token check) when `answer` is None
        self.answer = answer
        self.delay_s = delay_s
        self.requests = []  # [{"headers", "events", "bytes", "status", "arrived", "arrived_wall", "answered"}]
        self._lock = threading.Lock()
        collector = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go in two writes: no delayed-ACK stall

            def log_message(self, *args):
                pass

            def do_POST(self):
                arrived, arrived_wall = time.monotonic(), time.time()
                length = int(self.headers.get("Content-Length", 0))
                body = self.rfile.read(length).decode("utf-8")
                if collector.delay_s:
                    threading.Event().wait(collector.delay_s)
                if self.path != "/api/v1/events":
                    return self._answer(404, {"error": "not found"})
                if collector.token and self.headers.get("Authorization") != f"Bearer {collector.token}":
                    return self._answer(401, {"error": "missing or wrong token"})
                text = body.strip()
                if text.startswith("["):
                    events = json.loads(text)
                elif "\n" in text:
                    events = [json.loads(line) for line in text.splitlines() if line.strip()]
                else:
                    events = [json.loads(text)]
                decision = collector.answer(events) if collector.answer is not None else collector.status
                status, headers = decision if isinstance(decision, tuple) else (decision, {})
                record = {"headers": dict(self.headers), "events": events, "bytes": length, "status": status,
                          "arrived": arrived, "arrived_wall": arrived_wall}
                if status is None:  # hang up without a word, as a collector that died mid-request
                    record["answered"] = time.monotonic()
                    with collector._lock:
                        collector.requests.append(record)
                    self.close_connection = True
                    return
                payload = {"accepted": len(events)} if 200 <= status < 300 else {"error": "collector busy"}
                record["answered"] = time.monotonic()  # recorded before the client can read the answer
                with collector._lock:
                    collector.requests.append(record)
                self._answer(status, payload, headers)

            def _answer(self, status, payload, headers=None):
                data = json.dumps(payload).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                if (headers or {}).get("Connection") == "close":
                    self.close_connection = True
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.handle_error = lambda request, client_address: None  # clients hanging up are fine
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def events(self):
        """The events of the requests it acknowledged (2xx), in arrival order."""
        with self._lock:
            return [event for request in self.requests if 200 <= (request["status"] or 0) < 300
                    for event in request["events"]]

    def log(self):
        with self._lock:
            return list(self.requests)

    def close(self):
        self.server.shutdown()
        self.server.server_close()


if __name__ == "__main__":  # python fake_collector.py [--quiet]: run one, print its URL, then the events
    import sys

    collector = FakeCollector()
    print(collector.url, flush=True)
    quiet = "--quiet" in sys.argv
    seen = 0
    while True:
        time.sleep(0.2)
        if quiet:
            with collector._lock:
                collector.requests.clear()
            continue
        events = collector.events()
        for event in events[seen:]:
            print(json.dumps(event), flush=True)
        seen = len(events)
