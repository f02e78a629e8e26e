"""Post-import hooks: run a function on a module right after it is imported, or at once if it already is.

A meta-path finder that, for the watched names only, asks the other finders for the module's spec and
wraps its loader so that the hook runs after the module's code. Nothing else is touched: every other
import goes straight past it (one dict lookup)."""

from __future__ import annotations

import importlib.abc
import sys
import threading
from typing import Callable, Dict, List

Hook = Callable[[object], None]


class _HookedLoader(importlib.abc.Loader):
    def __init__(self, loader, run_hooks: Callable[[object], None]) -> None:
        self._loader = loader
        self._run_hooks = run_hooks

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        self._run_hooks(module)

    def __getattr__(self, name):  # get_source, get_filename, is_package, resource readers, ...
        return getattr(self._loader, name)


class PostImportFinder(importlib.abc.MetaPathFinder):
    def __init__(self) -> None:
        self._hooks: Dict[str, List[Hook]] = {}
        self._busy = threading.local()

    def register(self, name: str, hook: Hook) -> None:
        self._hooks.setdefault(name, []).append(hook)
        module = sys.modules.get(name)
        if module is not None:
            _run(hook, module)

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in self._hooks:
            return None
        busy = getattr(self._busy, "names", None)
        if busy is None:
            busy = self._busy.names = set()
        if fullname in busy:
            return None
        busy.add(fullname)
        try:
            for finder in sys.meta_path:
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(fullname, path, target)
                if spec is not None:
                    break
            else:
                return None
        except Exception:
            return None
        finally:
            busy.discard(fullname)
        if spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        hooks = self._hooks[fullname]
        spec.loader = _HookedLoader(spec.loader, lambda module: [_run(hook, module) for hook in list(hooks)])
        return spec


def _run(hook: Hook, module) -> None:
    try:
        hook(module)
    except Exception:
        pass


_finder = None
_finder_lock = threading.Lock()


def when_imported(name: str, hook: Hook) -> None:
    """Runs hook(module) once `name` is imported (now, if it already is)."""
    global _finder
    with _finder_lock:
        if _finder is None:
            _finder = PostImportFinder()
            sys.meta_path.insert(0, _finder)
    _finder.register(name, hook)
