"""A fake NCCL RAS server on loopback that speaks RAS's client protocol as NCCL's sources do.

The protocol (src/ras/client_support.cc rasClientEventLoop and src/ras/client.cc, NVIDIA/nccl at commit
5067397c2676d5aed50042fc39e5c8ee96eb0027; tests/records/fixtures/ras/README.md): commands are lines ("\\r\\n" or
"\\n"), matched without case; "CLIENT PROTOCOL n" is answered "SERVER PROTOCOL 2"; "TIMEOUT s", "SET FORMAT
text|json" (2.28.7 and later) and "MONITOR [groups]" (2.29 and later) are answered "OK" or "ERROR: ..."; a command
the server lacks is answered "ERROR: Unknown command <line>"; "STATUS" and "VERBOSE STATUS" are answered with the
report in several writes, after which the server closes the connection. Monitor events are written as they happen.

Besides the real behaviour, a FakeRas can misbehave the ways a client must survive: never answer, close in the
middle of a reply, send more than any status, answer the handshake with something else. Standard library only.
"""

import socket
import threading


class FakeRas:
    """One listening socket on 127.0.0.1 and a thread per connection.

    statuses: {"json": [bytes, ...], "text": [bytes, ...]}: the n-th VERBOSE STATUS of that format gets the n-th
    (the last one repeats). misbehave: None, "silent" (never answers anything), "silent_status" (answers the
    handshake and SET FORMAT, never the status), "close_mid_reply" (half the status, then close), "oversize"
    (megabytes of status), "http" (answers the handshake like a web server), "garbage_status" (a status that is
    neither JSON nor text), "hangup" (closes on the handshake). protocol: the version in SERVER PROTOCOL. json_format / monitor: whether the server is
    new enough for SET FORMAT json / MONITOR. events: {"json": [bytes, ...], "text": [...]} sent after MONITOR's OK.
    gate: a threading.Semaphore the server takes before each status it answers (the test releases one poll at a
    time); None answers at once. hold_monitor: keep a MONITOR connection open after its events, as RAS does, for
    push_event; else close it after them.
    """

    def __init__(self, statuses, misbehave=None, protocol=2, json_format=True, monitor=True, events=None, gate=None,
                 hold_monitor=False):
        self.statuses = statuses
        self.misbehave = misbehave
        self.protocol = protocol
        self.json_format = json_format
        self.monitor = monitor
        self.events = events or {"json": [], "text": []}
        self.gate = gate
        self.hold_monitor = hold_monitor
        self.monitors = []  # (connection, format) of each MONITOR connection held open
        self.connections = []  # the command lines of each connection, in the order they were accepted
        self.commands = []  # every command line received, in order, over all connections
        self.lock = threading.Lock()
        self.served = {"json": 0, "text": 0}
        self.stop = threading.Event()
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.listener.settimeout(0.2)
        self.port = self.listener.getsockname()[1]
        self.threads = []
        self.acceptor = threading.Thread(target=self._accept, daemon=True)
        self.acceptor.start()

    def close(self):
        """Stops listening first (a client connecting from now on is refused), then ends every connection."""
        self.stop.set()
        self.listener.close()
        self.acceptor.join(10)
        for t in self.threads:
            t.join(10)

    def push_event(self, events):
        """Writes an event ({"json": bytes, "text": bytes}) to every MONITOR connection held open; returns how many."""
        with self.lock:
            monitors = list(self.monitors)
        for conn, fmt in monitors:
            conn.sendall(events[fmt])
        return len(monitors)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _accept(self):
        while not self.stop.is_set():
            try:
                conn, _ = self.listener.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            t = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            self.threads.append(t)
            t.start()

    def _lines(self, conn):
        """Yields command lines until the client closes or the server stops."""
        conn.settimeout(0.2)
        buf = b""
        while not self.stop.is_set():
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                if line.endswith(b"\r"):
                    line = line[:-1]
                yield line.decode("utf-8", "replace")
            try:
                chunk = conn.recv(4096)
            except socket.timeout:
                continue
            except OSError:
                return
            if not chunk:
                return
            buf += chunk

    def _status(self, fmt):
        with self.lock:
            n = self.served[fmt]
            self.served[fmt] += 1
        replies = self.statuses[fmt]
        return replies[min(n, len(replies) - 1)]

    def _serve(self, conn):
        fmt = "text"
        mine = []
        with self.lock:
            self.connections.append(mine)
        try:
            for line in self._lines(conn):
                with self.lock:
                    self.commands.append(line)
                    mine.append(line)
                if self.misbehave == "silent":
                    continue
                low = line.lower()
                if low.startswith("client protocol "):
                    if self.misbehave == "hangup":
                        return
                    if self.misbehave == "http":
                        conn.sendall(b"HTTP/1.0 400 Bad Request\r\n\r\n")
                        return
                    conn.sendall(b"SERVER PROTOCOL %d\n" % self.protocol)
                elif low.startswith("timeout "):
                    conn.sendall(b"OK\n")
                elif low.startswith("set format ") and self.json_format:
                    wanted = low[len("set format "):]
                    if wanted in ("text", "json"):
                        fmt = wanted
                        conn.sendall(b"OK\n")
                    else:
                        conn.sendall(b"ERROR: Invalid format %s\n" % line[len("set format "):].encode())
                elif low in ("status", "verbose status"):
                    self._reply(conn, fmt)
                    return
                elif (low == "monitor" or low.startswith("monitor ")) and self.monitor:
                    conn.sendall(b"OK\n")
                    for event in self.events[fmt]:
                        conn.sendall(event)
                    if not self.hold_monitor:
                        return
                    with self.lock:
                        self.monitors.append((conn, fmt))
                else:
                    conn.sendall(b"ERROR: Unknown command " + line.encode() + b"\n")
        finally:
            with self.lock:
                self.monitors = [(c, f) for c, f in self.monitors if c is not conn]
            conn.close()

    def _reply(self, conn, fmt):
        if self.misbehave == "silent_status":
            self.stop.wait(30)
            return
        if self.misbehave == "oversize":
            block = b"x" * 65536
            try:
                for _ in range(64):  # 4 MiB, more than the client is told to take
                    conn.sendall(block)
            except OSError:
                pass  # the client stopped reading: what it should do
            return
        if self.misbehave == "garbage_status":
            conn.sendall(b"hello}\n")
            return
        if self.gate is not None:
            while not self.gate.acquire(timeout=0.05):
                if self.stop.is_set():
                    return
        body = self._status(fmt)
        if self.misbehave == "close_mid_reply":
            body = body[: len(body) // 2]
        # RAS writes a report in pieces (the summary, then the communicators once its collective is done).
        cut = len(body) // 3
        conn.sendall(body[:cut])
        conn.sendall(body[cut:])


if __name__ == "__main__":
    import argparse
    import time

    parser = argparse.ArgumentParser(description="a fake NCCL RAS server on 127.0.0.1 (prints its port)")
    parser.add_argument("--json", help="file answered to VERBOSE STATUS after SET FORMAT json")
    parser.add_argument("--text", help="file answered to VERBOSE STATUS in the text form")
    parser.add_argument("--old", action="store_true", help="a server before 2.28.7: no SET FORMAT, no MONITOR")
    args = parser.parse_args()
    read = lambda path: [open(path, "rb").read()] if path else [b""]
    with FakeRas({"json": read(args.json), "text": read(args.text)}, json_format=not args.old,
                 monitor=not args.old) as server:
        print(server.port, flush=True)
        while True:
            time.sleep(3600)
