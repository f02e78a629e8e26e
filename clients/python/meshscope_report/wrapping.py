"""wrap(): a transparent wrapper around a library function that tells a Probe when a call starts, ends or
fails. The wrapped call returns the very object the original returned and re-raises the very exception
it raised; a probe that fails is ignored, so the reporter can never change what the caller sees."""

from __future__ import annotations

import functools
import time
from typing import Any, Callable

WRAPPED_ATTR = "__meshscope_original__"


class Probe:
    """Override what you need. `start` returns a token handed to `done` / `failed`."""

    def start(self, args: tuple, kwargs: dict) -> Any:
        return None

    def done(self, token: Any, result: Any, seconds: float) -> None:
        pass

    def failed(self, token: Any, exc: BaseException, seconds: float) -> None:
        pass


def is_wrapped(function: Any) -> bool:
    return getattr(function, WRAPPED_ATTR, None) is not None


def original_of(function: Any) -> Any:
    return getattr(function, WRAPPED_ATTR, function)


def wrap(original: Callable, probe: Probe) -> Callable:
    if is_wrapped(original):
        return original

    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        try:
            token = probe.start(args, kwargs)
        except Exception:
            token = None
        begin = time.perf_counter()
        try:
            result = original(*args, **kwargs)
        except BaseException as exc:
            try:
                probe.failed(token, exc, time.perf_counter() - begin)
            except Exception:
                pass
            raise
        try:
            probe.done(token, result, time.perf_counter() - begin)
        except Exception:
            pass
        return result

    setattr(wrapper, WRAPPED_ATTR, original)
    return wrapper
