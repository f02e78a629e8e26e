"""EventBuffer: the reporter's bounded buffer of events waiting to be sent.

The bound (`max_pending`) exists for heartbeats, which come forever; lifecycle events (`launch` .. `ready`,
`error`, `exit`, any event that is not a heartbeat) are few per rank and are what the collector needs to
name a rank, so they are never dropped:

- a heartbeat replaces a pending older heartbeat (only the newest one says anything);
- a lifecycle event that finds the buffer full evicts the oldest pending heartbeat, and when there is none
  it is kept anyway, beyond the bound, and counted in `over_bound`;
- a heartbeat that finds the buffer full of lifecycle events is dropped.

Calling threads only append (one atomic deque operation, no lock, never blocks). The sender thread takes
from the left and puts back on the left; those, and removing a heartbeat from the middle, hold `_lock`, so
they never interleave. A caller that needs the lock (a heartbeat, or an eviction) waits for it at most
_LOCK_WAIT_S: the sender holds it only to move a batch, microseconds.
"""

from __future__ import annotations

import collections
import threading
from typing import List

HEARTBEAT = "heartbeat"
_LOCK_WAIT_S = 0.05


class EventBuffer:
    def __init__(self, max_pending: int) -> None:
        self.max_pending = max_pending
        self._events: collections.deque = collections.deque()
        self._heartbeats = 0  # heartbeats in _events; changed only under _lock
        self._lock = threading.Lock()
        # counters (approximate under concurrent emitters; they are for humans and heartbeats)
        self.heartbeats_dropped = 0  # superseded, evicted for a lifecycle event, or refused for room
        self.over_bound = 0  # lifecycle events kept beyond max_pending

    def __len__(self) -> int:
        return len(self._events)

    def add(self, event: dict) -> bool:
        """Queues one event; False when it was a heartbeat and was dropped. Never raises on a full buffer."""
        if event.get("phase") == HEARTBEAT:
            return self._add_heartbeat(event)
        self._events.append(event)
        if len(self._events) > self.max_pending and not self._evict_oldest_heartbeat():
            self.over_bound += 1
        return True

    def take(self, limit: int) -> List[dict]:
        """The oldest `limit` events, removed (sender thread)."""
        batch: List[dict] = []
        with self._lock:
            while len(batch) < limit:
                try:
                    event = self._events.popleft()
                except IndexError:
                    break
                if event.get("phase") == HEARTBEAT:
                    self._heartbeats -= 1
                batch.append(event)
        return batch

    def put_back(self, events: List[dict]) -> None:
        """Returns lifecycle events that could not be delivered to the front, in their order (sender
        thread). Heartbeats are not put back: a heartbeat that failed is not retried."""
        with self._lock:
            self._events.extendleft(reversed(events))
            while len(self._events) > self.max_pending and self._heartbeats:
                self._remove_oldest_heartbeat_locked()

    def _add_heartbeat(self, event: dict) -> bool:
        if not self._lock.acquire(timeout=_LOCK_WAIT_S):
            self.heartbeats_dropped += 1
            return False
        try:
            if self._heartbeats:
                self._remove_oldest_heartbeat_locked()
            elif len(self._events) >= self.max_pending:
                self.heartbeats_dropped += 1
                return False
            self._events.append(event)
            self._heartbeats += 1
            return True
        finally:
            self._lock.release()

    def _evict_oldest_heartbeat(self) -> bool:
        if not self._heartbeats or not self._lock.acquire(timeout=_LOCK_WAIT_S):
            return False
        try:
            return self._remove_oldest_heartbeat_locked()
        finally:
            self._lock.release()

    def _remove_oldest_heartbeat_locked(self) -> bool:
        # A snapshot, then delete by index: other threads only append on the right meanwhile, which moves
        # no index, and everything that touches the left holds the lock we hold.
        for index, event in enumerate(list(self._events)):
            if event.get("phase") == HEARTBEAT:
                del self._events[index]
                self._heartbeats -= 1
                self.heartbeats_dropped += 1
                return True
        return False
