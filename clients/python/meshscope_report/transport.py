"""HTTP POST of one batch of events to the collector (http.client, one kept-alive connection)."""

from __future__ import annotations

import email.utils
import http.client
import json
import ssl
import time
from typing import Callable, Optional, Sequence
from urllib.parse import urlsplit

from .mesh import wire_groups


MAX_BODY_BYTES = 512 * 1024
RETRY_AFTER_MAX_S = 300.0  # a collector asking for more is capped: the rank must not go quiet for longer


def parse_retry_after(value: Optional[str], now: float) -> Optional[float]:
    """Seconds to wait from a Retry-After header: delta-seconds ("5") or an HTTP-date, relative to `now`
    (seconds since the epoch). None when absent or unreadable; capped to [0, RETRY_AFTER_MAX_S]."""
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    if text.isdigit():
        seconds = float(int(text))
    else:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
        if when is None or when.tzinfo is None:  # an HTTP-date is always GMT; anything else is unreadable
            return None
        seconds = when.timestamp() - now
    return min(max(seconds, 0.0), RETRY_AFTER_MAX_S)


class SendResult:
    SENT = "sent"  # 2xx: the collector stored the events
    REJECTED = "rejected"  # 4xx: the collector refuses them; retrying would not help
    UNAVAILABLE = "unavailable"  # no answer, 5xx: try again later


class HttpTransport:
    def __init__(self, events_url: str, token: Optional[str], clock: Callable[[], float] = time.time,
                 ca_file: Optional[str] = None) -> None:
        parts = urlsplit(events_url)
        self._https = parts.scheme == "https"
        self._ca_file = ca_file  # https: the CAs to trust; None: the system's. Verification is never off.
        self._host = parts.hostname or "127.0.0.1"
        self._port = parts.port or (443 if self._https else 80)
        self._path = parts.path or "/"
        self._headers = {"Content-Type": "application/json", "Connection": "keep-alive"}
        if token:
            self._headers["Authorization"] = f"Bearer {token}"
        self._connection: Optional[http.client.HTTPConnection] = None
        self._clock = clock
        self.last_error = ""
        self.last_status = 0
        self.retry_after: Optional[float] = None  # seconds the collector asked for (503 / 429), else None
        self.delivered = 0  # leading events of the last post() that were stored, when it was split

    def _connect(self, timeout: float) -> http.client.HTTPConnection:
        if self._connection is None:
            if self._https:
                # Made here, inside the caller's try: an unreadable CA file is "not now" (last_error says
                # why), the events stay queued, and nothing falls back to an unverified connection.
                context = ssl.create_default_context(cafile=self._ca_file)
                self._connection = http.client.HTTPSConnection(self._host, self._port, timeout=timeout,
                                                               context=context)
            else:
                self._connection = http.client.HTTPConnection(self._host, self._port, timeout=timeout)
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

    def _encode(self, events: Sequence[dict], common: Optional[dict]) -> bytes:
        payload = [wire_groups({**common, **event} if common else event) for event in events]
        return json.dumps(payload, separators=(",", ":"), default=str).encode("utf-8")

    def _answered(self, answer: bytes) -> None:
        """A 2xx answer's body: the collector stored every event of the request."""

    def post(self, events: Sequence[dict], timeout: float, common: Optional[dict] = None) -> str:
        """POSTs the events as one JSON array, each merged over `common` (the identity fields). Connects
        before serializing, so a collector that is away costs a refused connect, not a JSON encoding.
        A body over MAX_BODY_BYTES goes as halves, in order; `delivered` then says how many leading events
        were stored before a half failed, so that the caller resends only the rest (never twice)."""
        self.delivered = 0
        self.retry_after = None
        result = self._post(events, timeout, common)
        if result == SendResult.SENT:
            self.delivered = len(events)
        return result

    def _post(self, events: Sequence[dict], timeout: float, common: Optional[dict]) -> str:
        try:
            connection = self._connect(timeout)
            if connection.sock is None:
                connection.connect()
            body = self._encode(events, common)
        except Exception as exc:  # refused, timed out, reset, DNS: all mean "not now"
            self.last_error = f"{type(exc).__name__}: {exc}"
            self.close()
            return SendResult.UNAVAILABLE
        if len(body) > MAX_BODY_BYTES and len(events) > 1:
            # Under the collector's body limit (1 MiB by default): big groups at 10k+ ranks add up.
            half = len(events) // 2
            first = self._post(events[:half], timeout, common)
            if first != SendResult.SENT:
                return first
            self.delivered = half
            second = self._post(events[half:], timeout, common)
            if second == SendResult.SENT:
                self.delivered = len(events)
            return second
        try:
            # How long this request is waited for: a relay never queues it longer (docs/live-at-scale.md).
            headers = {**self._headers, "MeshScope-Timeout": f"{timeout:g}"}
            connection.request("POST", self._path, body=body, headers=headers)
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
            self._answered(answer)
            return SendResult.SENT
        self.last_error = f"HTTP {response.status}: {answer.decode('utf-8', 'replace')[:200]}"
        if response.status in (429, 503):
            try:
                self.retry_after = parse_retry_after(response.getheader("Retry-After"), self._clock())
            except Exception:
                self.retry_after = None
        if 400 <= response.status < 500 and response.status not in (408, 429):
            return SendResult.REJECTED
        return SendResult.UNAVAILABLE


# OTLP/HTTP JSON logs (MESHSCOPE_PROTOCOL=otlp): each event is one log record; the rank's identity is its resource
# (docs/protocol.md, "OTLP logs").
_RESOURCE_ATTRIBUTES = (("job", "meshscope.job"), ("rank", "meshscope.rank"), ("world_size", "meshscope.world_size"),
                        ("local_rank", "meshscope.local_rank"), ("host", "host.name"), ("pid", "process.pid"))
_RESOURCE_FIELDS = frozenset(field for field, _ in _RESOURCE_ATTRIBUTES)
SERVICE_NAME = "meshscope-report"
_SEVERITY_INFO, _SEVERITY_ERROR = 9, 17


def any_value(value) -> dict:
    """The OTLP AnyValue of a JSON value (int64 as a decimal string, as OTLP's JSON writes it)."""
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, str):
        return {"stringValue": value}
    if isinstance(value, dict):
        return {"kvlistValue": {"values": [{"key": str(k), "value": any_value(v)} for k, v in value.items()]}}
    if isinstance(value, (list, tuple)):
        return {"arrayValue": {"values": [any_value(v) for v in value]}}
    if value is None:
        return {}
    return {"stringValue": str(value)}


def time_unix_nano(ts) -> Optional[str]:
    """Seconds as nanoseconds, a decimal string; exact enough that the collector reads back the same double."""
    if isinstance(ts, bool) or not isinstance(ts, (int, float)) or not ts >= 0 or ts >= 1e11:
        return None
    whole = int(ts)
    return str(whole * 1_000_000_000 + round((ts - whole) * 1e9))


def log_record(event: dict) -> dict:
    attributes = []
    for key, value in event.items():
        if key in _RESOURCE_FIELDS or value is None:
            continue
        if key == "ts" and time_unix_nano(value) is not None:
            continue
        if key == "error" and isinstance(value, dict) and set(value) <= {"type", "message"}:
            attributes += [{"key": f"exception.{k}", "value": any_value(v)} for k, v in value.items() if v is not None]
            continue
        attributes.append({"key": f"meshscope.{key}", "value": any_value(value)})
    failed = event.get("status") == "failed" or event.get("phase") == "error"
    record = {"severityNumber": _SEVERITY_ERROR if failed else _SEVERITY_INFO,
              "severityText": "ERROR" if failed else "INFO",
              "body": {"stringValue": f"{event.get('phase')} {event.get('status')}"},
              "attributes": attributes}
    nanos = time_unix_nano(event.get("ts"))
    if nanos is not None:
        record["timeUnixNano"] = nanos
    return record


def otlp_logs_request(events: Sequence[dict], common: Optional[dict] = None) -> dict:
    """An ExportLogsServiceRequest: one resourceLogs per identity (job, rank, world, host, pid), in order."""
    resources: dict = {}
    for event in events:
        event = wire_groups({**common, **event} if common else event)
        identity = tuple((attribute, event[field]) for field, attribute in _RESOURCE_ATTRIBUTES
                         if event.get(field) is not None)
        records = resources.setdefault(identity, [])
        records.append(log_record(event))
    scope = {"name": "meshscope_report"}
    return {"resourceLogs": [
        {"resource": {"attributes": [{"key": "service.name", "value": {"stringValue": SERVICE_NAME}}]
                      + [{"key": key, "value": any_value(value)} for key, value in identity]},
         "scopeLogs": [{"scope": scope, "logRecords": records}]}
        for identity, records in resources.items()]}


class OtlpTransport(HttpTransport):
    """POSTs batches as OTLP/HTTP JSON logs to <url>/v1/logs: a node-local OpenTelemetry Collector (its OTLP
    receiver) or `meshscope serve` itself. A 200 may carry OTLP's partial success: `rejected` then counts the log
    records that were refused (not retried: they would be refused again), and last_error says why."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.rejected = 0  # log records the last 2xx answer's partialSuccess refused

    def post(self, events: Sequence[dict], timeout: float, common: Optional[dict] = None) -> str:
        self.rejected = 0
        return super().post(events, timeout, common)

    def _encode(self, events: Sequence[dict], common: Optional[dict]) -> bytes:
        return json.dumps(otlp_logs_request(events, common), separators=(",", ":"), default=str).encode("utf-8")

    def _answered(self, answer: bytes) -> None:
        try:
            partial = json.loads(answer or b"{}").get("partialSuccess") or {}
            rejected = int(partial.get("rejectedLogRecords") or 0)  # an int64: a string in OTLP's JSON
        except (ValueError, AttributeError, TypeError):
            return
        if rejected > 0:
            self.rejected += rejected
            self.last_error = f"partial success: {rejected} rejected: {partial.get('errorMessage', '')}"[:300]
