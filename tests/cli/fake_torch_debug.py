"""A fake front end of torch's debug server on loopback (Python standard library only), for the ways a real one
fails: it serves `/fr_trace_json` as torch 2.15's front end writes it (torch/distributed/debug/_frontend.py,
JSON_RESP_TEMPLATE: one `<h2>Rank N: URL</h2>` section per rank, the rank's JSON indented in a `<pre>`, or
`<p>Failed to fetch: status=S</p>` and the reason), a page per read from a list (the last one repeated), and
misbehaves on request: silent (never answers), not_http (answers a line that is no HTTP), cut (a Content-Length
larger than the body, then closes), or any HTTP status with Python's send_error.
"""
import html
import http.server
import json
import socket
import threading

HEAD = """
<!doctype html>
<head>
    <title>FlightRecorder gloo - PyTorch Distributed</title>
</head>

<nav>
    <h1>Torch Distributed Debug Server</h1>

        <a href="/">Home</a> <!--@lint-ignore-->
    <a href="/fr_trace_json">(JSON)</a> <!--@lint-ignore-->
</nav>

<section class="content">
  
    <h1>FlightRecorder gloo</h1>

  
    """


def page(ranks, host="node0", escape=False):
    """The front end's page for ranks: a list of (status, text), text a dump (dict) for 200, else the reason. escape:
    the JSON as jinja2 writes it with autoescaping on (torch's front end has it off)."""
    out = HEAD
    for i, (status, text) in enumerate(ranks):
        out += "\n        <h2>Rank %d: http://%s:%d/handler/fr_trace_json?backend=gloo</h2>\n        " % (
            i, host, 41000 + i)
        if status != 200:
            out += "\n            <p>Failed to fetch: status=%d</p>\n            <pre>%s</pre>\n        " % (status, text)
        else:
            dump = json.dumps(text, indent=2)
            out += "\n            <pre>%s</pre>\n        " % (html.escape(dump).replace("&quot;", "&#34;") if escape
                                                              else dump)
        out += "\n    "
    return (out + "\n\n</section>\n    ").encode()


class FakeTorchDebug:
    def __init__(self, pages, misbehave=None, gate=None):
        """pages: the bodies of successive reads (bytes); misbehave: None, "silent", "not_http", "cut", or an HTTP
        status (int) answered with send_error; gate: a semaphore each read waits on before it is answered."""
        self.pages = list(pages)
        self.misbehave = misbehave
        self.gate = gate
        self.paths = []
        self.closing = threading.Event()
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                fake.paths.append(self.path)
                if fake.gate is not None:
                    while not fake.gate.acquire(timeout=0.1):
                        if fake.closing.is_set():
                            return
                if fake.misbehave == "silent":
                    fake.closing.wait()
                    return
                if fake.misbehave == "not_http":
                    self.wfile.write(b"CLIENT PROTOCOL 2\n")
                    return
                if isinstance(fake.misbehave, int):
                    self.send_error(fake.misbehave, "Handler not found: /fr_trace_json")
                    return
                body = fake.pages[0] if len(fake.pages) == 1 else fake.pages.pop(0)
                self.send_response(200)
                self.send_header("Content-type", "text/html")
                if fake.misbehave == "cut":
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body[:len(body) // 2])
                    return
                self.end_headers()
                self.wfile.write(body)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.closing.set()
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def closed_port():
    """A loopback port nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
