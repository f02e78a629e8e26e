"""Helpers of the hostile-input tests: a real `meshscope serve` or `meshscope relay` on a free loopback port, raw
HTTP over a socket (so that a request can be as malformed as an attacker makes it), and the process's memory
from /proc. Standard library only. The binary comes from MESHSCOPE_BIN (ctest passes $<TARGET_FILE:meshscope>)."""

import json
import os
import socket
import subprocess
import tempfile
import time

# The refusals of the HTTP engine and the JSON bound that the collector and the relay share (net/).
DEPTH = "invalid JSON: nested deeper than 64 levels"
CHUNK = "chunk extensions or trailers larger than 65536 bytes"
CODING = 'Transfer-Encoding other than "chunked" is not supported: send chunked or Content-Length'
HEADERS = "request headers larger than 65536 bytes"
MIB = 1024  # in KiB, as /proc counts


def deep(levels, opener="[", closer="]"):
    return opener * levels + closer * levels

BIN = os.environ.get("MESHSCOPE_BIN", "")
ENV = dict(os.environ, QT_QPA_PLATFORM="offscreen")


def start(args, prefix="meshscope-hostile-", **popen):
    """Starts `meshscope ARGS...` (serve or relay), which prints one JSON line once it listens; returns
    (process, that line as a dict, its temporary directory). `popen`: more of subprocess.Popen's arguments."""
    directory = tempfile.TemporaryDirectory(prefix=prefix)
    log = open(os.path.join(directory.name, "stderr.log"), "w+")
    process = subprocess.Popen([BIN] + args, stdout=subprocess.PIPE, stderr=log, env=ENV, text=True, **popen)
    line = process.stdout.readline()
    if not line:
        process.wait(timeout=10)
        log.seek(0)
        raise RuntimeError(f"meshscope {args[0]} did not start: {log.read()}")
    process.log = log
    return process, json.loads(line), directory


def serve(extra=(), db=None, **popen):
    directory = tempfile.TemporaryDirectory(prefix="meshscope-hostile-db-")
    db = db or os.path.join(directory.name, "history.db")
    process, info, logs = start(["serve", "--listen", "127.0.0.1:0", "--db", db] + list(extra), **popen)
    process.keep = (directory, logs)
    process.port = info["port"]
    process.db = db
    return process


def relay(upstream_port, extra=()):
    process, info, logs = start(["relay", "--listen", "127.0.0.1:0", "--upstream",
                                 f"http://127.0.0.1:{upstream_port}"] + list(extra))
    process.keep = (logs,)
    process.port = info["port"]
    return process


def stop(process):
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    process.stdout.close()
    process.log.close()


def stderr_of(process):
    process.log.flush()
    process.log.seek(0)
    return process.log.read()


def cpu_seconds(process):
    """User + system CPU time a live process has used, in seconds (/proc/PID/stat): what a request costs the
    collector, whatever else the machine runs at the time."""
    with open(f"/proc/{process.pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def memory_kib(process, field="VmRSS"):
    """VmRSS (now) or VmHWM (the peak) of a live process, in KiB."""
    with open(f"/proc/{process.pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} for {process.pid}")


class Answer:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers  # lower-case name -> value
        self.body = body

    def json(self):
        return json.loads(self.body)

    def __repr__(self):
        return f"{self.status} {self.headers} {self.body[:300]!r}"


def read_answer(sock, head=False):
    """Reads one HTTP/1.1 answer (Content-Length framed, as the collector and the relay write every answer)."""
    data = sock.leftover
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"closed before an answer: {data!r}")
        data += chunk
    header, rest = data.split(b"\r\n\r\n", 1)
    lines = header.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = 0 if head else int(headers.get("content-length", "0"))
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        rest += chunk
    sock.leftover = rest[length:]
    return Answer(status, headers, rest[:length])


class Connection:
    """A client socket and the bytes read past the last answer."""

    def __init__(self, port, timeout):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.leftover = b""

    def send(self, data):
        return self.sock.send(data)

    def sendall(self, data):
        self.sock.sendall(data)

    def recv(self, n):
        return self.sock.recv(n)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.sock.close()


def connect(port, timeout=20):
    return Connection(port, timeout)


def exchange(port, raw, head=False, timeout=20):
    """Sends raw request bytes on a fresh connection and reads one answer. Sending stops early (without an
    error) when the server closed its side after answering, as it does for a refused request."""
    with connect(port, timeout) as sock:
        try:
            view = memoryview(raw)
            while view:
                sent = sock.send(view[:1 << 20])
                view = view[sent:]
        except (BrokenPipeError, ConnectionResetError):
            pass
        return read_answer(sock, head)


def request(port, method, path, body=b"", headers=None, host=None):
    if isinstance(body, str):
        body = body.encode()
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host or f'127.0.0.1:{port}'}"]
    for name, value in (headers or {}).items():
        lines.append(f"{name}: {value}")
    if body or method in ("POST", "PUT"):
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def event(job="j", rank=0, world=4, phase="launch", status="started", **fields):
    return dict({"job": job, "rank": rank, "world_size": world, "phase": phase, "status": status}, **fields)


def post_events(port, events, headers=None):
    return exchange(port, request(port, "POST", "/api/v1/events", json.dumps(events), headers))


def get(port, path, headers=None, host=None):
    return exchange(port, request(port, "GET", path, headers=headers, host=host))


def wait_until(predicate, timeout=20, interval=0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    return predicate()


class EngineAttacks:
    """What every server on the shared HTTP engine answers alike: mixed into each server's TestCase, whose
    setUpClass sets self.port."""

    def assert_error(self, answer, status, message):
        self.assertEqual(answer.status, status, answer)
        self.assertEqual(answer.json(), {"error": message})

    def test_headers_are_bounded(self):
        big = {"X-Fill": "h" * 70000}
        self.assert_error(exchange(self.port, request(self.port, "GET", "/api/v1/health", headers=big)), 431, HEADERS)
        many = {f"X-H{i}": "v" * 100 for i in range(1000)}
        self.assert_error(exchange(self.port, request(self.port, "POST", "/api/v1/events", "{}", many)), 431, HEADERS)
        near = {"X-Fill": "h" * 60000}
        self.assertEqual(exchange(self.port, request(self.port, "GET", "/api/v1/health", headers=near)).status, 200)
