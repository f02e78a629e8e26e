"""meshscope_report: attach a PyTorch / LlamaFactory rank to a MeshScope collector (protocol meshscope.event/1).

    import meshscope_report
    meshscope_report.install()          # reads MESHSCOPE_URL, MESHSCOPE_TOKEN, MESHSCOPE_JOB

or, with no code change at all, put clients/python/autoattach on PYTHONPATH (its sitecustomize calls
install()). Without MESHSCOPE_URL, install() does nothing: no thread, no hook, no import of torch.
See docs/attach.md.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import Mapping, Optional

from .config import Config
from .identity import identity_from_env
from .reporter import Reporter
from .session import Session

__version__ = "0.1.0"
PROTOCOL = "meshscope.event/1"

_session: Optional[Session] = None
_lock = threading.Lock()


def install(env: Optional[Mapping[str, str]] = None) -> Optional[Session]:
    """Attaches this process (idempotent). Returns the Session, or None when MESHSCOPE_URL is unset.
    Never raises."""
    global _session
    try:
        config = Config.from_env(env)
        if config is None:
            return None
        with _lock:
            if _session is not None:
                return _session
            reporter = Reporter(config, identity_from_env(env))
            session = Session(reporter)
            reporter.emit("launch", "done", {"python": sys.version.split()[0], "reporter": __version__})
            from .fsdpturbo_hooks import install_fsdpturbo_hook
            from .torch_hooks import install_torch_hooks

            install_torch_hooks(session)
            install_fsdpturbo_hook(session)
            atexit.register(reporter.shutdown)
            if hasattr(os, "register_at_fork"):
                os.register_at_fork(after_in_child=reporter.after_fork_in_child)
            _install_excepthook(reporter)
            _session = session
            return session
    except Exception:
        return None


def session() -> Optional[Session]:
    return _session


def mark_ready() -> None:
    """Declares initialization over now (otherwise the first collective after init does)."""
    if _session is not None:
        try:
            _session.mark_ready()
        except Exception:
            pass


def _install_excepthook(reporter: Reporter) -> None:
    previous = sys.excepthook

    def excepthook(exc_type, exc, tb):
        try:
            if reporter.active and not issubclass(exc_type, (KeyboardInterrupt, SystemExit)):
                reporter.emit("error", "failed", {"error": {"type": exc_type.__name__[:256], "message": str(exc)[:8192]}})
        except Exception:
            pass
        previous(exc_type, exc, tb)

    sys.excepthook = excepthook
