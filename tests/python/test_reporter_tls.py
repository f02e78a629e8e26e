"""The Python reporter against a real `meshscope serve --tls-cert --tls-key` (a self-signed certificate made
here with the openssl CLI): with MESHSCOPE_CA_FILE naming that certificate the events are stored; without
it the certificate is not trusted and nothing is sent (verification is never turned off); an unreadable
CA file keeps the events queued and says why."""

import json
import os
import ssl
import subprocess
import tempfile
import time
import unittest
import urllib.request

import support  # noqa: F401  (puts clients/python on sys.path)
from meshscope_report.config import Config
from meshscope_report.identity import identity_from_env
from meshscope_report.reporter import Reporter
from meshscope_report.transport import SendResult

KNOWN = {"RANK": "3", "WORLD_SIZE": "8", "LOCAL_RANK": "3"}


def make_certificate(directory):
    cert = os.path.join(directory, "cert.pem")
    key = os.path.join(directory, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    return cert, key


class TlsServe:
    """`meshscope serve --tls-cert --tls-key` on a free port, read from its first stdout line."""

    def __init__(self, binary, directory, cert, key):
        self.process = subprocess.Popen(
            [binary, "serve", "--listen", "127.0.0.1:0", "--db", os.path.join(directory, "history.db"),
             "--tls-cert", cert, "--tls-key", key],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = json.loads(self.process.stdout.readline())
        self.url = line["listening"]
        self.context = ssl.create_default_context(cafile=cert)

    def get(self, path):
        with urllib.request.urlopen(self.url + path, timeout=5, context=self.context) as response:
            return json.loads(response.read().decode("utf-8"))

    def close(self):
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class TlsCollectorTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        binary = os.environ.get("MESHSCOPE_BIN", "")
        if not binary:
            raise RuntimeError("MESHSCOPE_BIN is not set: ctest passes the meshscope binary")
        cls.dir = tempfile.TemporaryDirectory(prefix="meshscope-tls-")
        cls.cert, cls.key = make_certificate(cls.dir.name)
        cls.serve = TlsServe(binary, cls.dir.name, cls.cert, cls.key)

    @classmethod
    def tearDownClass(cls):
        cls.serve.close()
        cls.dir.cleanup()

    def reporter(self, job, **env):
        settings = {"MESHSCOPE_URL": self.serve.url, "MESHSCOPE_JOB": job, **KNOWN, **env}
        config = Config.from_env(settings)
        return Reporter(config, identity_from_env(settings), clock=time.time, monotonic=time.time, start_thread=False,
                        warn=lambda message: None)

    def test_listening_line_says_https(self):
        self.assertTrue(self.serve.url.startswith("https://127.0.0.1:"), self.serve.url)

    def test_ca_file_from_the_environment_is_trusted(self):
        reporter = self.reporter("tls-trusted", MESHSCOPE_CA_FILE=self.cert)
        self.assertEqual(reporter.config.ca_file, self.cert)
        reporter.activate()
        reporter.emit("process_group", "started")
        reporter.step(time.time())
        self.assertEqual(reporter.sent, 1, reporter._transport.last_error)
        job = self.serve.get("/api/v1/jobs/tls-trusted")
        self.assertEqual(job["world_size"], 8)
        self.assertEqual(job["ranks_seen"], 1)

    def test_without_the_ca_file_the_certificate_is_refused(self):
        reporter = self.reporter("tls-untrusted")
        reporter.activate()
        reporter.emit("process_group", "started")
        reporter.step(time.time())
        self.assertEqual(reporter.sent, 0)
        self.assertIn("CERTIFICATE_VERIFY_FAILED", reporter._transport.last_error)

    def test_unreadable_ca_file_keeps_the_events(self):
        missing = os.path.join(self.dir.name, "no-such-ca.pem")
        reporter = self.reporter("tls-missing-ca", MESHSCOPE_CA_FILE=missing)
        self.assertEqual(reporter._transport.post([{"phase": "launch"}], 2.0), SendResult.UNAVAILABLE)
        self.assertIn("FileNotFoundError", reporter._transport.last_error)


if __name__ == "__main__":
    unittest.main()
