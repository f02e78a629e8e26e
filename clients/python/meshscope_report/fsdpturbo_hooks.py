"""Wraps LlamaFactory's FSDPTurboParallelState.initialize (llamafactory.v1 ... fsdpturbo), imported before or
after install().

What it reports, because this is where MoE layouts go wrong:
- `parallel_state started` with the topology (dp, cp, ep, efsdp, edp, and LlamaFactory's model mesh
  mp_replicate, mp_shard when its DistributedInterface has one) and the expert mesh BEFORE the original
  runs, so a rank that then fails or hangs in group creation has already said what it was building;
- the expert groups it joins, named by dim (edp, efsdp, ep, expert_cp), as they are created, and at `done` the
  model and data mesh groups it joined earlier (mp_replicate, mp_shard, dp, cp), named by their members;
- `parallel_state done` / `failed` with the timing; a re-initialization with a different topology is
  reported as failed with the original RuntimeError's type and exact message, and that same exception
  object propagates to the caller.
Reading the topology calls the same getters initialize() calls (get_world_size(Dim.DP), strategy.cp_size,
dist_config["ep_size"], and get_world_size(Dim.MP_REPLICATE / MP_SHARD)); if any of them fails the reporter just
reports less.
"""

from __future__ import annotations

from typing import Optional

from .import_hooks import when_imported
from .session import MeshContext, Session
from .torch_hooks import _arg, _error
from .wrapping import Probe, original_of, wrap

MODULE = "llamafactory.v1.plugins.trainer_plugins.distributed.fsdpturbo"
CLASS = "FSDPTurboParallelState"
EXPERT_DIMS = ("edp", "efsdp", "ep", "expert_cp")
MODEL_DIMS = ("mp_replicate", "mp_shard")


def _positive_int(value) -> Optional[int]:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 1 else None


class InitializeProbe(Probe):
    def __init__(self, session: Session, module_globals: dict) -> None:
        self.session = session
        self.globals = module_globals

    def _requested(self, args, kwargs):
        dist_interface = _arg(args, kwargs, 1, "dist_interface")
        dist_config = _arg(args, kwargs, 2, "dist_config")
        dim = self.globals.get("Dim")
        dp_key = getattr(dim, "DP", "dp")
        dp = dist_interface.get_world_size(dp_key)
        cp = dist_interface.strategy.cp_size
        ep = int(dist_config.get("ep_size", 1))
        return dp, cp, ep

    def _with_model_mesh(self, topology: Optional[dict], args, kwargs) -> Optional[dict]:
        model = self._model_mesh(args, kwargs)
        if topology is not None and model is not None:
            topology["mp_replicate"], topology["mp_shard"] = model
            mesh = {"name": "model", "dim_names": list(MODEL_DIMS), "shape": list(model)}
            self.session.meshes.setdefault("model", mesh)
        return topology

    def _model_mesh(self, args, kwargs) -> Optional[tuple]:
        """(mp_replicate, mp_shard) as LlamaFactory's DistributedInterface holds them; None when it has no model
        mesh dims (an older LlamaFactory) or cannot say."""
        try:
            dist_interface = _arg(args, kwargs, 1, "dist_interface")
            dim = self.globals.get("Dim")
            keys = getattr(dim, "MP_REPLICATE", None), getattr(dim, "MP_SHARD", None)
            if None in keys:
                return None
            sizes = tuple(_positive_int(dist_interface.get_world_size(key)) for key in keys)
            return None if None in sizes else sizes
        except Exception:
            return None

    def start(self, args, kwargs):
        session, reporter = self.session, self.session.reporter
        reporter.activate()
        session.enter()
        state = args[0] if args else None
        token = {"reinit": False, "topology": None, "mesh": None, "context": None}
        if state is not None and getattr(state, "_initialized", False):
            current = (state.dp_size, state.cp_size, state.ep_size)
            token["reinit"] = True
            token["topology"] = self._with_model_mesh(_topology_fields(*current), args, kwargs)
            return token
        dp, cp, ep = self._requested(args, kwargs)
        topology = self._with_model_mesh(_topology_fields(dp, cp, ep), args, kwargs)
        token["topology"] = topology
        fields = {}
        if topology is not None:
            fields["topology"] = topology
            session.topology = topology
            if ep > 1 and topology.get("efsdp"):
                shape = [topology["edp"], topology["efsdp"], ep, cp]
                mesh = {"name": "expert", "dim_names": list(EXPERT_DIMS), "shape": shape}
                token["mesh"] = mesh
                session.meshes["expert"] = mesh
                fields["mesh"] = mesh
                context = MeshContext(shape, EXPERT_DIMS)
                session.push_context(context)
                token["context"] = context
        reporter.emit("parallel_state", "started", fields)
        return token

    def _finish(self, token) -> dict:
        session = self.session
        session.parallel_state_finished += 1
        session.leave()
        fields = {}
        if token is None:
            return fields
        if token["context"] is not None:
            session.pop_context(token["context"])
        if token["topology"] is not None:
            fields["topology"] = token["topology"]
        if token["mesh"] is not None:
            fields["mesh"] = token["mesh"]
        return fields

    def done(self, token, result, seconds):
        fields = self._finish(token)
        if token is not None and token["reinit"]:
            return  # same topology again: initialize() returned without doing anything
        groups = {}
        rank = self.session.reporter.identity.rank
        topology = fields.get("topology")
        if topology is not None and rank is not None:
            # The model mesh was built first, so its groups are matched first (a default (1, world) model mesh
            # has the same members as a cp = 1 job's dp group).
            if "mp_replicate" in topology:
                shape = [topology["mp_replicate"], topology["mp_shard"]]
                groups.update(self.session.name_mesh_groups(shape, MODEL_DIMS, rank))
            groups.update(self.session.name_data_groups(topology["dp"], topology["cp"], rank))
        if token is not None and token["context"] is not None:
            groups.update(token["context"].groups)
        if groups:
            fields["groups"] = groups
            context = token["context"] if token is not None else None
            # The expert mesh's own count where FSDPTurbo built it; the data mesh's from the session.
            creation = self.session.creation_for(groups)
            if context is not None:
                creation.update(self.session.creation_for(groups, context.creation))
            if creation:
                fields["creation_index"] = creation
        fields["duration_s"] = seconds
        self.session.reporter.emit("parallel_state", "done", fields)

    def failed(self, token, exc, seconds):
        fields = self._finish(token)
        fields["duration_s"] = seconds
        fields["error"] = _error(exc)
        self.session.reporter.emit("parallel_state", "failed", fields)


def _topology_fields(dp, cp, ep) -> Optional[dict]:
    """(dp, cp, ep) plus what follows (efsdp, edp) by FSDPTurbo's formulas; None unless all are positive
    integers (the collector refuses anything else, and a ValueError from initialize says why)."""
    dp, cp, ep = _positive_int(dp), _positive_int(cp), _positive_int(ep)
    if dp is None or cp is None or ep is None:
        return None
    topology = {"dp": dp, "cp": cp, "ep": ep}
    if dp % ep == 0:
        efsdp = dp // ep if ep > 1 else 1
        topology["efsdp"] = efsdp
        topology["edp"] = dp // (ep * efsdp) if ep > 1 else 1
    return topology


def install_fsdpturbo_hook(session: Session) -> None:
    def on_module(module) -> None:
        session.parallel_state_loaded = True
        cls = getattr(module, CLASS, None)
        initialize = cls.__dict__.get("initialize") if isinstance(cls, type) else None
        if initialize is None or not callable(initialize):
            return
        original = original_of(initialize)
        cls.initialize = wrap(original, InitializeProbe(session, getattr(original, "__globals__", {})))

    when_imported(MODULE, on_module)

