"""A stand-in collector on the standard library's http.server: accepts POST /api/v1/events (one event, a
JSON array or NDJSON), checks the Bearer token when given one, and keeps every request for the tests."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeCollector:
    def __init__(self, token=None, status=200, delay_s=0.0):
        self.token = token
        self.status = status  # what POSTs answer (after the token check)
        self.delay_s = delay_s
        self.requests = []  # [{"headers": {...}, "events": [...]}]
        self._lock = threading.Lock()
        collector = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
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
                with collector._lock:
                    collector.requests.append({"headers": dict(self.headers), "events": events, "bytes": length})
                self._answer(collector.status, {"accepted": len(events)})

            def _answer(self, status, payload):
                data = json.dumps(payload).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
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
        with self._lock:
            return [event for request in self.requests for event in request["events"]]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


if __name__ == "__main__":  # python fake_collector.py [--quiet]: run one, print its URL, then the events
    import sys
    import time

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
