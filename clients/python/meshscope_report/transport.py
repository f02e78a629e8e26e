"""HTTP POST of one batch of events to the collector (http.client, one kept-alive connection)."""

from __future__ import annotations

import http.client
import json
from typing import Optional, Sequence
from urllib.parse import urlsplit


MAX_BODY_BYTES = 512 * 1024


class SendResult:
    SENT = "sent"  # 2xx: the collector stored the events
    REJECTED = "rejected"  # 4xx: the collector refuses them; retrying would not help
    UNAVAILABLE = "unavailable"  # no answer, 5xx: try again later


class HttpTransport:
    def __init__(self, events_url: str, token: Optional[str]) -> None:
        parts = urlsplit(events_url)
        self._https = parts.scheme == "https"
        self._host = parts.hostname or "127.0.0.1"
        self._port = parts.port or (443 if self._https else 80)
        self._path = parts.path or "/"
        self._headers = {"Content-Type": "application/json", "Connection": "keep-alive"}
        if token:
            self._headers["Authorization"] = f"Bearer {token}"
        self._connection: Optional[http.client.HTTPConnection] = None
        self.last_error = ""
        self.last_status = 0

    def _connect(self, timeout: float) -> http.client.HTTPConnection:
        if self._connection is None:
            cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            self._connection = cls(self._host, self._port, timeout=timeout)
        else:
            self._connection.timeout = timeout
            if self._connection.sock is not None:
                self._connection.sock.settimeout(timeout)
        return self._connection

    def close(self) -> None:
        if self._connection is not None:
            try:
                self._connection.close()
            except Exception:
                pass
            self._connection = None

    def post(self, events: Sequence[dict], timeout: float, common: Optional[dict] = None) -> str:
        """POSTs the events as one JSON array, each merged over `common` (the identity fields). Connects
        before serializing, so a collector that is away costs a refused connect, not a JSON encoding."""
        try:
            connection = self._connect(timeout)
            if connection.sock is None:
                connection.connect()
            payload = [{**common, **event} for event in events] if common else list(events)
            body = json.dumps(payload, separators=(",", ":"), default=str).encode("utf-8")
        except Exception as exc:  # refused, timed out, reset, DNS: all mean "not now"
            self.last_error = f"{type(exc).__name__}: {exc}"
            self.close()
            return SendResult.UNAVAILABLE
        if len(body) > MAX_BODY_BYTES and len(events) > 1:
            # Under the collector's body limit (1 MiB by default): big groups at 10k+ ranks add up.
            half = len(events) // 2
            first = self.post(events[:half], timeout, common)
            second = self.post(events[half:], timeout, common)
            return first if first != SendResult.SENT else second
        try:
            connection.request("POST", self._path, body=body, headers=self._headers)
            response = connection.getresponse()
            answer = response.read()  # all of it, so the connection stays usable
        except Exception as exc:  # refused, timed out, reset, DNS: all mean "not now"
            self.last_error = f"{type(exc).__name__}: {exc}"
            self.close()
            return SendResult.UNAVAILABLE
        self.last_status = response.status
        if response.will_close:
            self.close()
        if 200 <= response.status < 300:
            return SendResult.SENT
        self.last_error = f"HTTP {response.status}: {answer.decode('utf-8', 'replace')[:200]}"
        if 400 <= response.status < 500 and response.status not in (408, 429):
            return SendResult.REJECTED
        return SendResult.UNAVAILABLE
