import os

__all__ = ["init_process_group", "is_initialized", "get_rank", "get_world_size", "new_group", "split_group",
           "barrier", "all_reduce", "ProcessGroup"]

_state = {"rank": None, "world": None, "groups": [], "collectives": 0}


class ProcessGroup:
    def __init__(self, ranks):
        self.ranks = list(ranks)


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None):
    if backend == "explode":
        raise ValueError("Invalid backend: 'explode'")
    _state["rank"] = rank if rank >= 0 else int(os.environ["RANK"])
    _state["world"] = world_size if world_size >= 0 else int(os.environ["WORLD_SIZE"])


def is_initialized():
    return _state["rank"] is not None


def get_rank(group=None):
    return _state["rank"]


def get_world_size(group=None):
    return _state["world"]


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None):
    return _new_group_with_tag(ranks, timeout, backend, pg_options, None, use_local_synchronization, group_desc)


def _new_group_with_tag(ranks=None, timeout=None, backend=None, pg_options=None, pg_tag=None,
                        use_local_synchronization=False, group_desc=None):
    group = ProcessGroup(sorted(ranks) if ranks is not None else range(_state["world"]))
    _state["groups"].append(group)
    return group


def split_group(parent_pg=None, split_ranks=None, timeout=None, pg_options=None, group_desc=None):
    for line in split_ranks:
        if _state["rank"] in line:
            group = ProcessGroup(line)
            _state["groups"].append(group)
            return group
    return None


def barrier(group=None, async_op=False, device_ids=None):
    _state["collectives"] += 1


def all_reduce(tensor, op=None, group=None, async_op=False):
    _state["collectives"] += 1
    return tensor
