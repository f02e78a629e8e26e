"""Session: what this rank has reported so far (topology, meshes, groups) and when initialization is over.

`ready` is sent once, at the first collective call after initialization is over: the process group is up,
no init call (process group, mesh, group, parallel state) is running, and, when LlamaFactory's FSDPTurbo
module is loaded, its initialize() has returned or raised. A job that runs no collective for
`ready_after_s` after its last init call is declared ready by the sender thread; `mark_ready()` does it
explicitly.
"""

from __future__ import annotations

import threading
import time
from typing import Dict, List, Optional, Sequence

from . import mesh as meshmath
from .reporter import Reporter

MAX_GROUPS_PER_EVENT = 16  # the collector's limit on dims in one event's "groups"


class MeshContext:
    """Names the groups created while one mesh is being built. PyTorch creates the groups dim by dim
    (world/shape[d] new_group calls per dim, or one split_group call per dim), so a group is named after the
    first dim, at or after the one being built, along which its members form a line. Checking the members
    (not only counting calls) keeps the names right when a version skips a call, e.g. reusing the default
    group for a dim that spans the whole world.

    The count of a dim's calls, member or not, also gives the rank's creation index along it (PyTorch calls
    new_group for every group of a dim on every rank, and names a group after the number of groups created
    before it): the place of its own group, the same on every member unless the ranks created the groups in
    different orders (PyTorch 2.8 and 2.9 do, docs/protocol.md). A split_group call creates all of a dim's
    groups at once, in no order: it gives no index."""

    def __init__(self, shape: Sequence[int], dim_names: Sequence[str]) -> None:
        self.shape = [int(s) for s in shape]
        self.dim_names = list(dim_names)
        self._per_dim = meshmath.groups_per_dim(self.shape)
        self._size = 1
        for size in self.shape:
            self._size *= size
        self._dim = 0  # the dim being built
        self._count = 0  # groups of that dim seen so far
        self.last_index: Optional[int] = None  # the latest new_group call's place among its dim's calls
        self.groups: Dict[str, List[int]] = {}
        self.creation: Dict[str, int] = {}  # dim name -> creation index of this rank's group

    def _is_line(self, members: List[int], dim: int) -> bool:
        if len(members) != self.shape[dim] or not members or not 0 <= members[0] < self._size:
            return False
        return members == meshmath.group_along(self.shape, dim, members[0])

    def name_for(self, members: Optional[List[int]], split: bool = False) -> Optional[str]:
        self.last_index = None
        if not members:
            return None
        for dim in range(self._dim, len(self.shape)):
            if self._is_line(members, dim):
                if dim != self._dim:
                    self._dim, self._count = dim, 0
                self.last_index = None if split else self._count
                self._count += 1
                if split or self._count >= self._per_dim[dim]:
                    self._dim, self._count = dim + 1, 0
                return self.dim_names[dim]
        return None


class Session:
    def __init__(self, reporter: Reporter, monotonic=time.monotonic) -> None:
        self.reporter = reporter
        self._monotonic = monotonic
        self._lock = threading.Lock()
        self.topology: Optional[dict] = None
        self.meshes: Dict[str, dict] = {}
        self.groups: Dict[str, List[int]] = {}  # dim name or "group_<k>" -> members
        self.creation: Dict[str, int] = {}  # dim name -> creation index of its group (in the mesh that named it)
        self.group_index = 0  # new_group / split_group calls so far (the same on every rank)
        self.contexts: List[MeshContext] = []
        self.creating_group = False  # inside a wrapped group-creation call
        self.unnamed: Dict[int, List[int]] = {}  # creation index -> members, groups this rank joined unnamed
        self.process_group_up = False
        self.busy = 0  # init calls running
        self.parallel_state_loaded = False
        self.parallel_state_finished = 0
        self.collective_seen = False
        self.ready_sent = False
        self.last_activity = monotonic()
        self.ready_listeners: List = []
        reporter.add_tick_callback(self._tick)

    # ---- init calls --------------------------------------------------------------------------------------
    def enter(self) -> None:
        with self._lock:
            self.busy += 1
            self.last_activity = self._monotonic()

    def leave(self) -> None:
        with self._lock:
            self.busy = max(self.busy - 1, 0)
            self.last_activity = self._monotonic()

    def push_context(self, context: MeshContext) -> None:
        self.contexts.append(context)

    def pop_context(self, context: MeshContext) -> None:
        if context in self.contexts:
            self.contexts.remove(context)

    def next_group_name(self, members: Optional[List[int]], split: bool = False) -> Optional[str]:
        """The dim name of the group being created (members sorted), when a mesh being built knows it."""
        name = None
        for context in reversed(self.contexts):  # innermost first; outer ones are kept in step
            found = context.name_for(members, split)
            name = name or found
        return name

    def pending_creation(self, key: str) -> Dict[str, int]:
        """The creation index of the group being created as `key` (the mesh being built that named it last), before
        the call returns; {} when none knows it (split_group, or no mesh being built)."""
        for context in reversed(self.contexts):
            if key in context.dim_names and context.last_index is not None:
                return {key: context.last_index}
        return {}

    def record_group(self, key: str, members: List[int]) -> None:
        """A group this rank joined, named `key`; a mesh being built also records the group's creation index."""
        self.groups[key] = members
        for context in self.contexts:
            if key in context.dim_names:
                context.groups[key] = members
                if context.last_index is not None:
                    context.creation[key] = context.last_index
                    self.creation[key] = context.last_index
                else:  # split_group: no index, nor an earlier mesh's
                    context.creation.pop(key, None)
                    self.creation.pop(key, None)

    def creation_for(self, groups: Dict[str, List[int]], creation: Optional[Dict[str, int]] = None) -> Dict[str, int]:
        """The creation indices (this session's, or a mesh's) of these groups, where known and within the
        collector's bound (an event it refuses would take the whole batch with it)."""
        creation = self.creation if creation is None else creation
        world = self.reporter.identity.world_size or 0
        return {key: creation[key] for key in groups if key in creation and 0 <= creation[key] < world}

    def name_data_groups(self, dp: int, cp: int, rank: int) -> Dict[str, List[int]]:
        """LlamaFactory's data mesh (dp, cp) is built before the parallel state, often without names we can
        see; name the groups this rank joined whose members are exactly its dp / cp lines."""
        return self.name_mesh_groups([dp, cp], ["dp", "cp"], rank)

    def name_mesh_groups(self, shape: Sequence[int], dim_names: Sequence[str], rank: int) -> Dict[str, List[int]]:
        """Names, in creation order, the unnamed groups this rank joined whose members are exactly its lines of a
        mesh built earlier (LlamaFactory's model and data meshes)."""
        named = {}
        expected = meshmath.groups_of_rank(list(shape), list(dim_names), rank)
        for dim, members in expected.items():
            if dim in self.groups:
                continue
            for index, observed in sorted(self.unnamed.items()):
                if observed == members:
                    del self.unnamed[index]
                    self.groups.pop(f"group_{index}", None)
                    self.groups[dim] = members
                    named[dim] = members
                    break
        return named

    def record_unnamed(self, index: int, members: List[int]) -> None:
        if len(self.unnamed) < 1024:
            self.unnamed[index] = members

    def groups_for_event(self) -> Dict[str, List[int]]:
        named = {k: v for k, v in self.groups.items() if not k.startswith("group_")}
        for key, members in self.groups.items():
            if len(named) >= MAX_GROUPS_PER_EVENT:
                break
            named.setdefault(key, members)
        return dict(list(named.items())[:MAX_GROUPS_PER_EVENT])

    # ---- ready -------------------------------------------------------------------------------------------
    def _init_over(self) -> bool:
        return (
            self.process_group_up
            and self.busy == 0
            and (not self.parallel_state_loaded or self.parallel_state_finished > 0)
        )

    def on_collective(self) -> bool:
        """Called at each collective until ready is sent; True once ready has been sent."""
        self.collective_seen = True
        if self.ready_sent:
            return True
        if self._init_over():
            self.mark_ready()
        return self.ready_sent

    def mark_ready(self) -> None:
        with self._lock:
            if self.ready_sent:
                return
            self.ready_sent = True
        fields = {}
        if self.topology is not None:
            fields["topology"] = dict(self.topology)
        groups = self.groups_for_event()
        if groups:
            fields["groups"] = groups
            creation = self.creation_for(groups)
            if creation:
                fields["creation_index"] = creation
        self.reporter.emit("ready", "done", fields)
        for listener in self.ready_listeners:
            try:
                listener()
            except Exception:
                pass

    def _tick(self, now: float) -> None:
        if self.ready_sent or not self.collective_seen:
            return
        if self.process_group_up and self.busy == 0 and now - self.last_activity >= self.reporter.config.ready_after_s:
            self.mark_ready()
