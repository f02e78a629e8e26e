"""Reporter: queues events on the caller's thread and sends them from one background daemon thread.

The calling thread only builds a small dict and appends it to a bounded buffer (a few microseconds). The
sender thread drains what is pending into one POST (batching) and follows the collector's word when it
cannot take them: a `503` / `429` with `Retry-After: S` is retried after S x U(1, 1.5) seconds; no answer,
a reset, a 5xx without Retry-After (or 408 / 429 without) is retried with jittered exponential backoff
(0.25 s doubling up to `backoff_max_s`, times U(0.5, 1.5)), so thousands of ranks do not come back in
lockstep; any other 4xx is final for those events. Lifecycle events are kept until delivered (see
buffer.py); a heartbeat that was not delivered is dropped, never retried: the next one comes in
`heartbeat_s`. Nothing here ever raises into the caller, and interpreter exit waits at most `exit_wait_s`
(<= 2 s) for the last events.

The thread starts only on `activate()` (the first torch.distributed / parallel-state call), so a process
that never initializes distribution (the torchrun agent, data-loader workers) never sends anything.
"""

from __future__ import annotations

import os
import random
import sys
import threading
import time
from typing import Callable, List, Optional

from .buffer import HEARTBEAT, EventBuffer
from .config import Config
from .identity import Identity
from .transport import HttpTransport, OtlpTransport, SendResult

_BACKOFF_FIRST_S = 0.25
_LINGER_S = 0.005


class Reporter:
    def __init__(
        self,
        config: Config,
        identity: Identity,
        transport=None,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        start_thread: bool = True,
        warn: Optional[Callable[[str], None]] = None,
        rng: Optional[random.Random] = None,
    ) -> None:
        self.config = config
        self.identity = identity
        transport_class = OtlpTransport if config.protocol == "otlp" else HttpTransport
        self._transport = (transport if transport is not None
                           else transport_class(config.events_url, config.token, clock=clock,
                                                ca_file=config.ca_file))
        self._clock = clock
        self._monotonic = monotonic
        self._random = rng if rng is not None else random.Random()
        self._start_thread = start_thread
        self._warn = warn if warn is not None else _warn_stderr
        self._warned: set = set()
        self._buffer = EventBuffer(config.max_pending)
        self._wake = threading.Event()
        self._lock = threading.Lock()
        self._thread: Optional[threading.Thread] = None
        self._tick_callbacks: List[Callable[[float], None]] = []
        self.active = False  # activated: sending, heartbeats
        self.enabled = True  # False after shutdown and in forked children
        self._stopping = False
        self._deadline = 0.0
        self._failures = 0
        self._retry_at = 0.0
        self._told_to_wait = False  # the last failure came with Retry-After: the collector is there
        self._next_heartbeat = 0.0
        # counters (approximate under concurrent emitters; they are for humans and heartbeats)
        self.sent = 0
        self.rejected = 0
        self.requests = 0
        self.heartbeats_refused = 0  # heartbeats the collector did not take (503 or no answer): not retried

    # ---- calling threads -------------------------------------------------------------------------------
    def emit(self, phase: str, status: str, fields: Optional[dict] = None) -> None:
        """Queues one event. Never raises, never blocks (beyond microseconds)."""
        try:
            if not self.enabled:
                return
            event = {} if fields is None else fields
            event["phase"] = phase
            event["status"] = status
            event["ts"] = self._clock()
            self._buffer.add(event)
            # While backing off (collector away or busy) the sender wakes on its own at the retry time.
            if self.active and self._failures == 0 and not self._wake.is_set():
                self._wake.set()
        except Exception:
            pass

    def activate(self) -> None:
        """Starts sending (idempotent). Called by the hooks when the process joins a distributed job."""
        if self.active or not self.enabled:
            return
        with self._lock:
            if self.active:
                return
            self._next_heartbeat = self._monotonic() + self.config.heartbeat_s
            self.active = True
            if self._start_thread:
                thread = threading.Thread(target=self._run, name="meshscope-reporter", daemon=True)
                self._thread = thread
                thread.start()

    def set_identity(self, identity: Identity) -> None:
        self.identity = identity

    def add_tick_callback(self, callback: Callable[[float], None]) -> None:
        self._tick_callbacks.append(callback)

    def pending(self) -> int:
        return len(self._buffer)

    @property
    def dropped(self) -> int:
        """Events this reporter dropped: only ever heartbeats."""
        return self._buffer.heartbeats_dropped + self.heartbeats_refused

    def stats(self) -> dict:
        return {"sent": self.sent, "dropped": self.dropped, "rejected": self.rejected, "pending": len(self._buffer),
                "heartbeats_dropped": self._buffer.heartbeats_dropped, "heartbeats_refused": self.heartbeats_refused,
                "over_bound": self._buffer.over_bound}

    def shutdown(self) -> None:
        """Interpreter exit: queue `exit`, give the sender at most exit_wait_s, then stop. Never raises."""
        try:
            if not self.enabled:
                return
            if not self.active:
                self.enabled = False
                return
            self.emit("exit", "done", {"reporter": self.stats()})
            self._deadline = self._monotonic() + self.config.exit_wait_s
            self._stopping = True
            self._wake.set()
            thread = self._thread
            if thread is not None and thread is not threading.current_thread():
                thread.join(timeout=self.config.exit_wait_s)
            elif thread is None:
                self._final_flush()
            self.enabled = False
        except Exception:
            self.enabled = False

    def after_fork_in_child(self) -> None:
        """A forked child (data-loader worker) is not the rank: it must never report as it."""
        self.enabled = False
        self.active = False
        self._thread = None
        self._buffer = EventBuffer(self.config.max_pending)  # the parent's lock may be held: a new one
        self._transport = _NullTransport()

    # ---- sender thread ---------------------------------------------------------------------------------
    def _run(self) -> None:
        try:
            while not self._stopping:
                delay = self.step(self._monotonic())
                if self._stopping:
                    break
                if self._wake.wait(timeout=max(delay, 0.001)) and not self._stopping:
                    time.sleep(_LINGER_S)  # let a burst (a mesh's groups) gather into one POST
                self._wake.clear()
            self._final_flush()
        except Exception:
            pass
        finally:
            self._transport.close()

    def _final_flush(self) -> None:
        """Sends what is left until the exit deadline. A collector that says "Retry-After" is there and
        busy: wait for it when that fits before the deadline. One that does not answer is not waited for."""
        while len(self._buffer):
            remaining = self._deadline - self._monotonic()
            if remaining <= 0.01:
                return
            if self._send_batch(min(self.config.timeout_s, remaining)):
                continue
            if not self._told_to_wait or self._retry_at >= self._deadline:
                return
            time.sleep(max(self._retry_at - self._monotonic(), 0.0))

    def step(self, now: float) -> float:
        """One round of the sender: heartbeat when due, then one POST when allowed. Returns the seconds
        until it wants to run again. Public so tests can drive it with a fake clock."""
        for callback in self._tick_callbacks:
            try:
                callback(now)
            except Exception:
                pass
        if self.active and now >= self._next_heartbeat:
            self._next_heartbeat = now + self.config.heartbeat_s
            # Also while the collector is away or busy: it replaces the pending one, so they never pile up.
            self.emit(HEARTBEAT, "done", {"reporter": self.stats()})
        wait = self._next_heartbeat - now if self.active else self.config.heartbeat_s
        if not len(self._buffer) or not self.identity.known:
            return wait
        if now < self._retry_at:
            return min(wait, self._retry_at - now)
        if self._send_batch(self.config.timeout_s, now):
            return 0.0 if len(self._buffer) else wait
        return min(wait, max(self._retry_at - now, 0.0))

    def _send_batch(self, timeout: float, now: Optional[float] = None) -> bool:
        if not self.identity.known:
            return False
        batch = self._buffer.take(self.config.batch_max)
        if not batch:
            return True
        common = self.identity.fields(self.config.job)
        self.requests += 1
        result = self._transport.post(batch, timeout, common)
        if result == SendResult.SENT:
            # OTLP's partial success: the records refused are judged one by one already; never retried.
            refused = min(max(getattr(self._transport, "rejected", 0), 0), len(batch))
            if refused:
                self.rejected += refused
                self._warn_once("rejected", f"the collector rejected {refused} events ({self._transport.last_error})")
            self.sent += len(batch) - refused
            self._failures = 0
            self._retry_at = 0.0
            self._told_to_wait = False
            return True
        delivered = min(max(getattr(self._transport, "delivered", 0), 0), len(batch))
        self.sent += delivered
        rest = batch[delivered:]
        if result == SendResult.REJECTED and len(rest) > 1 and getattr(self._transport, "last_status", 0) in (400, 413):
            # The collector takes a body all or nothing: resend one by one so one bad event costs only itself.
            for index, event in enumerate(rest):
                answer = self._transport.post([event], timeout, common)
                if answer == SendResult.SENT:
                    self.sent += 1
                elif answer == SendResult.REJECTED:
                    self.rejected += 1
                else:  # the collector went away or got busy meanwhile: keep the rest for later
                    return self._unavailable(rest[index:], now)
            self._warn_once("rejected", f"the collector rejected events ({self._transport.last_error})")
            return True
        if result == SendResult.REJECTED:
            self.rejected += len(rest)
            self._warn_once("rejected", f"the collector rejected {len(rest)} events ({self._transport.last_error})")
            return True
        return self._unavailable(rest, now)

    def _unavailable(self, events: List[dict], now: Optional[float]) -> bool:
        """Keeps the lifecycle events for a retry and drops the heartbeats, then picks the retry time."""
        lifecycle = [event for event in events if event.get("phase") != HEARTBEAT]
        self.heartbeats_refused += len(events) - len(lifecycle)
        if lifecycle:
            self._buffer.put_back(lifecycle)
        self._failures += 1
        now = self._monotonic() if now is None else now
        retry_after = getattr(self._transport, "retry_after", None)
        self._told_to_wait = retry_after is not None
        if retry_after is not None:  # the collector said when: at least that, spread over half as much again
            delay = retry_after * self._random.uniform(1.0, 1.5)
        else:
            base = min(_BACKOFF_FIRST_S * (2 ** min(self._failures - 1, 16)), self.config.backoff_max_s)
            delay = base * self._random.uniform(0.5, 1.5)
        self._retry_at = now + delay
        if os.environ.get("MESHSCOPE_DEBUG"):
            self._warn_once("unavailable", f"collector unavailable ({self._transport.last_error}); retrying")
        return False

    @property
    def retry_at(self) -> float:
        return self._retry_at

    def _warn_once(self, key: str, message: str) -> None:
        if key in self._warned:
            return
        self._warned.add(key)
        try:
            self._warn(f"meshscope_report: {message}")
        except Exception:
            pass


class _NullTransport:
    last_error = ""
    retry_after = None
    delivered = 0

    def post(self, events, timeout, common=None):
        return SendResult.UNAVAILABLE

    def close(self):
        pass


def _warn_stderr(message: str) -> None:
    sys.stderr.write(message + "\n")
