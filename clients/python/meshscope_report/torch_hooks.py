"""Wraps torch.distributed where the installed version has it: init_process_group, new_group, split_group,
init_device_mesh / DeviceMesh, and (once, until `ready` is sent) the collectives.

Every function is patched both in torch.distributed.distributed_c10d (so torch's own internal calls, e.g.
from DeviceMesh, are seen) and in the torch.distributed namespace (what user code calls)."""

from __future__ import annotations

import sys
from typing import Any, Dict, List, Optional

from . import identity as identity_mod
from . import mesh as meshmath
from .import_hooks import when_imported
from .session import MeshContext, Session
from .wrapping import Probe, original_of, wrap

C10D = "torch.distributed.distributed_c10d"
DIST = "torch.distributed"
DEVICE_MESH_MODULES = ("torch.distributed.device_mesh", "torch.distributed._tensor.device_mesh")

# Collectives that end initialization; the first one after init sends `ready`, then they are unwrapped.
COLLECTIVES = (
    "barrier", "monitored_barrier", "all_reduce", "broadcast", "reduce", "all_gather", "all_gather_into_tensor",
    "_all_gather_base", "reduce_scatter", "reduce_scatter_tensor", "_reduce_scatter_base", "all_to_all",
    "all_to_all_single", "gather", "scatter", "send", "recv", "isend", "irecv", "all_gather_object",
    "broadcast_object_list",
)


def _error(exc: BaseException) -> dict:
    return {"type": type(exc).__name__[:256], "message": str(exc)[:8192]}


def _arg(args: tuple, kwargs: dict, index: int, name: str, default=None):
    if name in kwargs:
        return kwargs[name]
    return args[index] if len(args) > index else default


def _rank(session: Session) -> Optional[int]:
    return session.reporter.identity.rank


class ProcessGroupProbe(Probe):
    def __init__(self, session: Session) -> None:
        self.session = session

    def start(self, args, kwargs):
        session, reporter = self.session, self.session.reporter
        reporter.activate()
        session.enter()
        if not reporter.identity.known:
            rank, world = _arg(args, kwargs, 5, "rank", -1), _arg(args, kwargs, 4, "world_size", -1)
            if isinstance(rank, int) and isinstance(world, int) and 0 <= rank < world:
                reporter.set_identity(reporter.identity.with_rank(rank, world))
        backend = _arg(args, kwargs, 0, "backend")
        reporter.emit("process_group", "started", {"backend": str(backend)} if backend is not None else {})

    def done(self, token, result, seconds):
        session, reporter = self.session, self.session.reporter
        try:
            dist = sys.modules.get(DIST)
            rank, world = dist.get_rank(), dist.get_world_size()
            identity = reporter.identity.with_rank(rank, world)
            device, uuid = identity_mod.cuda_device(sys.modules.get("torch"))
            if device is not None:
                from dataclasses import replace

                identity = replace(identity, device=device, device_uuid=uuid)
            reporter.set_identity(identity)
        except Exception:
            pass
        session.process_group_up = True
        session.leave()
        reporter.emit("process_group", "done", {"duration_s": seconds})

    def failed(self, token, exc, seconds):
        self.session.leave()
        self.session.reporter.emit("process_group", "failed", {"duration_s": seconds, "error": _error(exc)})


_NESTED = object()
# Groups no mesh names are keyed "group_<creation index>" for the first few only: the collector keeps a
# bounded number of dim names per job, and a 512-group dim must not crowd out ep, efsdp, ... Every
# communicator event also carries "group": {"index", "members"} for the timeline.
UNNAMED_GROUP_KEYS = 16


class GroupProbe(Probe):
    """new_group(ranks=None, ...), its inner _new_group_with_tag(ranks=None, ...) (which some DeviceMesh
    versions call directly) and split_group(parent_pg=None, split_ranks=None, ...)."""

    def __init__(self, session: Session, split: bool) -> None:
        self.session = session
        self.split = split

    def _lines(self, args, kwargs) -> List[List[int]]:
        """The groups this call creates (sorted members): one for new_group, one per line for split_group."""
        if self.split:
            return [sorted(int(r) for r in line) for line in _arg(args, kwargs, 1, "split_ranks") or []]
        ranks = _arg(args, kwargs, 0, "ranks")
        if ranks is None:
            world = self.session.reporter.identity.world_size
            return [list(range(world))] if world else []
        return [sorted(int(r) for r in ranks)]

    def start(self, args, kwargs):
        session = self.session
        if session.creating_group:  # new_group -> _new_group_with_tag: one group, reported once
            return _NESTED
        session.creating_group = True
        session.reporter.activate()
        session.enter()
        index = session.group_index
        session.group_index += 1
        lines = self._lines(args, kwargs)
        name = session.next_group_name(lines[0] if lines else None, split=self.split)
        rank = _rank(session)
        members = next((line for line in lines if rank in line), None)
        if members is None:
            return None
        fields = {"group": {"index": index, "members": members}}
        if name is None and index < UNNAMED_GROUP_KEYS and not kwargs.get("use_local_synchronization"):
            name = f"group_{index}"  # the same creation index on every rank, so peers' reports compare
        if name is not None:
            fields["groups"] = {name: members}
            # Where the group comes in its dim's creation order, said before the call: ranks that create a dim's
            # groups in different orders hang inside these calls, so `done` may never come to say it.
            creation = self.session.creation_for({name: members}, self.session.pending_creation(name))
            if creation:
                fields["creation_index"] = creation
        session.reporter.emit("communicator", "started", fields)
        return name, members, index

    def done(self, token, result, seconds):
        if token is _NESTED:
            return
        self.session.creating_group = False
        self.session.leave()
        if token is None:
            return
        name, members, index = token
        fields = {"group": {"index": index, "members": members}, "duration_s": seconds}
        if name is None or name.startswith("group_"):
            self.session.record_unnamed(index, members)
        if name is not None:
            self.session.record_group(name, members)
            fields["groups"] = {name: members}
            creation = self.session.creation_for(fields["groups"]) if not name.startswith("group_") else {}
            if creation:
                fields["creation_index"] = creation
        self.session.reporter.emit("communicator", "done", fields)

    def failed(self, token, exc, seconds):
        if token is _NESTED:
            return
        self.session.creating_group = False
        self.session.leave()
        fields = {"duration_s": seconds, "error": _error(exc)}
        if token is not None:
            name, members, index = token
            fields["group"] = {"index": index, "members": members}
            if name is not None:
                fields["groups"] = {name: members}
        self.session.reporter.emit("communicator", "failed", fields)


def _shape_of(mesh: Any) -> Optional[List[int]]:
    shape = getattr(mesh, "shape", None)
    if shape is not None:
        return [int(s) for s in shape]
    dims = []
    while isinstance(mesh, (list, tuple)):
        dims.append(len(mesh))
        mesh = mesh[0] if mesh else None
    return dims or None


class DeviceMeshProbe(Probe):
    """init_device_mesh(device_type, mesh_shape, *, mesh_dim_names) and DeviceMesh(device_type, mesh, ...).
    Nested calls (init_device_mesh constructing a DeviceMesh) report once, from the outer one."""

    def __init__(self, session: Session, constructor: bool) -> None:
        self.session = session
        self.constructor = constructor

    def start(self, args, kwargs):
        session = self.session
        if getattr(session, "_in_device_mesh", False):
            return None
        if self.constructor:
            args = args[1:]  # self
            shape = _shape_of(_arg(args, kwargs, 1, "mesh"))
        else:
            shape = [int(s) for s in _arg(args, kwargs, 1, "mesh_shape")]
        if not shape:
            # PyTorch >= 2.9 builds a slice (mesh["ep"]) or a flattened mesh from its parent's layout, without a
            # mesh of its own (mesh=None): nothing to report here, and the groups a flatten creates are reported
            # by the group hooks.
            return None
        names = _arg(args, kwargs, 2, "mesh_dim_names")
        names = [str(n) for n in names] if names else [f"dim{d}" for d in range(len(shape))]
        mesh = {"name": meshmath.mesh_name(names), "dim_names": names, "shape": shape}
        # Everything that can fail comes before the session changes: a probe that raised after enter() would
        # leave the session busy, and `ready` would never be sent.
        context = MeshContext(shape, names)
        session.reporter.activate()
        session._in_device_mesh = True
        session.enter()
        session.meshes[mesh["name"]] = mesh
        session.push_context(context)
        session.reporter.emit("device_mesh", "started", {"mesh": mesh})
        return mesh, context

    def _finish(self, token):
        session = self.session
        session._in_device_mesh = False
        session.pop_context(token[1])
        session.leave()

    def done(self, token, result, seconds):
        if token is None:
            return
        self._finish(token)
        mesh, context = token
        self._add_world_dims(mesh, context)
        fields = {"mesh": mesh, "duration_s": seconds}
        if context.groups:
            fields["groups"] = dict(context.groups)
            creation = self.session.creation_for(context.groups, context.creation)
            if creation:
                fields["creation_index"] = creation
        self.session.reporter.emit("device_mesh", "done", fields)

    def _add_world_dims(self, mesh, context) -> None:
        """A dim whose one group is the whole world gets no new_group call: PyTorch hands it the default group
        (every rank). Its group is still the rank's group along that dim (mesh.get_group(dim)), so report it."""
        world = self.session.reporter.identity.world_size
        shape = mesh["shape"]
        total = 1
        for size in shape:
            total *= size
        if not world or total != world:
            return
        for size, dim in zip(shape, mesh["dim_names"]):
            if size == world and dim not in context.groups:
                members = list(range(world))
                context.groups[dim] = members
                self.session.groups[dim] = members

    def failed(self, token, exc, seconds):
        if token is None:
            return
        self._finish(token)
        self.session.reporter.emit("device_mesh", "failed", {"mesh": token[0], "duration_s": seconds, "error": _error(exc)})


class CollectiveProbe(Probe):
    def __init__(self, session: Session, unwrap) -> None:
        self.session = session
        self.unwrap = unwrap

    def start(self, args, kwargs):
        if self.session.on_collective():
            self.unwrap()


def _patch(module, name: str, wrapper) -> None:
    if module is not None and hasattr(module, name):
        setattr(module, name, wrapper)


def _adopt_existing_process_group(session: Session, c10d) -> None:
    """install() called from code after init_process_group: take the rank from torch and start reporting."""
    try:
        if c10d.is_initialized() and not session.process_group_up:
            reporter = session.reporter
            reporter.set_identity(reporter.identity.with_rank(c10d.get_rank(), c10d.get_world_size()))
            session.process_group_up = True
            reporter.activate()
    except Exception:
        pass


def install_torch_hooks(session: Session) -> None:
    wrappers: Dict[str, Any] = {}  # name -> wrapper, shared by both namespaces
    originals: Dict[str, Any] = {}

    def unwrap_collectives() -> None:
        for module_name in (C10D, DIST):
            module = sys.modules.get(module_name)
            for name in COLLECTIVES:
                if module is not None and name in wrappers and getattr(module, name, None) is wrappers[name]:
                    setattr(module, name, originals[name])

    probes = {
        "init_process_group": ProcessGroupProbe(session),
        "new_group": GroupProbe(session, split=False),
        "split_group": GroupProbe(session, split=True),
        "_new_group_with_tag": GroupProbe(session, split=False),
        "init_device_mesh": DeviceMeshProbe(session, constructor=False),
    }
    collective_probe = CollectiveProbe(session, unwrap_collectives)

    def on_c10d(module) -> None:
        _adopt_existing_process_group(session, module)
        for name, probe in probes.items():
            function = getattr(module, name, None)
            if callable(function):
                originals[name] = original_of(function)
                wrappers[name] = wrap(originals[name], probe)
                setattr(module, name, wrappers[name])
        if not session.ready_sent:
            for name in COLLECTIVES:
                function = getattr(module, name, None)
                if callable(function):
                    originals[name] = original_of(function)
                    wrappers[name] = wrap(originals[name], collective_probe)
                    setattr(module, name, wrappers[name])

    def on_dist(module) -> None:
        c10d = sys.modules.get(C10D)
        if c10d is not None and not wrappers:
            on_c10d(c10d)
        for name, wrapper in wrappers.items():
            current = getattr(module, name, None)
            if current is not None and original_of(current) is originals[name]:
                if name in COLLECTIVES and session.ready_sent:
                    continue
                setattr(module, name, wrapper)

    def on_device_mesh(module) -> None:
        for name in ("new_group", "split_group", "_new_group_with_tag"):  # bound by `from ... import` earlier
            if name in wrappers and getattr(module, name, None) is originals[name]:
                setattr(module, name, wrappers[name])
        function = getattr(module, "init_device_mesh", None)
        if callable(function):
            setattr(module, "init_device_mesh", wrap(original_of(function), probes["init_device_mesh"]))
        cls = getattr(module, "DeviceMesh", None)
        init = getattr(cls, "__init__", None) if isinstance(cls, type) else None
        if init is not None and not hasattr(init, "__meshscope_original__"):
            cls.__init__ = wrap(init, DeviceMeshProbe(session, constructor=True))
        dist = sys.modules.get(DIST)
        if dist is not None and callable(function) and getattr(dist, "init_device_mesh", None) is function:
            setattr(dist, "init_device_mesh", module.init_device_mesh)

    when_imported(C10D, on_c10d)
    when_imported(DIST, on_dist)
    for name in DEVICE_MESH_MODULES:
        when_imported(name, on_device_mesh)
