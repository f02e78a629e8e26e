"""Run the real collector (`meshscope serve`) for a test: a free loopback port and a temporary database.
The binary comes from MESHSCOPE_BIN (ctest passes $<TARGET_FILE:meshscope>)."""

import json
import os
import subprocess
import tempfile
import time
import urllib.request

from support import free_port


def serve_binary():
    binary = os.environ.get("MESHSCOPE_BIN", "")
    if not binary or not os.access(binary, os.X_OK):
        return None
    try:
        probe = subprocess.run([binary, "serve", "--help"], capture_output=True, text=True, timeout=30,
                               env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
    except (OSError, subprocess.TimeoutExpired):
        return None
    return binary if probe.returncode == 0 and "--listen" in probe.stdout + probe.stderr else None


class MeshScopeServe:
    def __init__(self, binary, token=None, missing_after=120, extra=()):
        self.binary = binary
        self.dir = tempfile.TemporaryDirectory(prefix="meshscope-serve-")
        self.db = os.path.join(self.dir.name, "events.db")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.token = token
        command = [binary, "serve", "--listen", f"127.0.0.1:{self.port}", "--db", self.db,
                   "--missing-after", str(missing_after), "--stale-after", "120"]
        if token:
            command += ["--token", token]
        command += list(extra)
        self.log = open(os.path.join(self.dir.name, "serve.log"), "w+")
        self.process = subprocess.Popen(command, stdout=self.log, stderr=subprocess.STDOUT,
                                        env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
        deadline = time.monotonic() + 20
        while True:
            try:
                self.get("/api/v1/jobs")
                return
            except Exception:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.close()
                    raise RuntimeError(f"meshscope serve did not start: {self.output()}")
                time.sleep(0.1)

    def get(self, path):
        request = urllib.request.Request(self.url + path)
        if self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        with urllib.request.urlopen(request, timeout=5) as response:
            return json.loads(response.read().decode("utf-8"))

    def ranks(self, job):
        try:
            return self.get(f"/api/v1/jobs/{job}/ranks")["ranks"]
        except Exception:
            return []

    def findings(self, job):
        try:
            return self.get(f"/api/v1/jobs/{job}/findings")["findings"]
        except Exception:
            return []

    def stored_events(self, job):
        """The job's events as the collector stored them (`meshscope export`), oldest first."""
        out = subprocess.run([self.binary, "export", "--db", self.db, "--job", job], capture_output=True,
                             text=True, timeout=60, env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
        if out.returncode != 0:
            raise RuntimeError(f"meshscope export failed: {out.stderr}")
        lines = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
        # The export's first and last lines frame the events (docs/collector.md, "Replay and export").
        return [line for line in lines if "meshscope_export" not in line and "meshscope_export_end" not in line]

    def wait_for(self, predicate, timeout, interval=0.25):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = predicate()
            if value:
                return value
            time.sleep(interval)
        return predicate()

    def output(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()[-4000:]

    def close(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()
        self.dir.cleanup()
