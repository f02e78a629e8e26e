"""Reporter settings, read once from the environment (MESHSCOPE_*)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping, Optional
from urllib.parse import urlsplit

# Launcher variables that name the job, in the order they are trusted. Every rank of one job sees the same
# value, which is what makes them usable as the job id.
_JOB_ID_VARIABLES = (
    "TORCHELASTIC_RUN_ID",  # torchrun --rdzv-id (torchrun's own default "none" is skipped)
    "SLURM_JOB_ID",
    "PMIX_NAMESPACE",  # Open MPI 5 / PRRTE
    "OMPI_MCA_ess_base_jobid",  # Open MPI 4
    "LSB_JOBID",
    "PBS_JOBID",
)


def _float(env: Mapping[str, str], name: str, default: float, low: float, high: float) -> float:
    try:
        value = float(env.get(name, default))
    except ValueError:
        return default
    return min(max(value, low), high)


def _int(env: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    try:
        value = int(env.get(name, default))
    except ValueError:
        return default
    return min(max(value, low), high)


def job_from_env(env: Mapping[str, str]) -> str:
    """MESHSCOPE_JOB, else the launcher's job id, else the rendezvous address, else "default"."""
    explicit = env.get("MESHSCOPE_JOB", "").strip()
    if explicit:
        return explicit[:128]
    for name in _JOB_ID_VARIABLES:
        value = env.get(name, "").strip()
        if value and value != "none":
            return value[:128]
    if env.get("MASTER_ADDR") and env.get("MASTER_PORT"):
        return f"torch-{env['MASTER_ADDR']}-{env['MASTER_PORT']}"[:128]
    return "default"


PROTOCOLS = ("meshscope", "otlp")


@dataclass(frozen=True)
class Config:
    url: str  # base URL of the collector, e.g. http://head:7077
    token: Optional[str]
    job: str
    heartbeat_s: float = 5.0
    # per HTTP request (connect + answer). Longer than a start-up storm's queueing at the collector: a request
    # abandoned at 1 s is answered anyway and then sent again, which doubled a 16,384-rank storm's work
    # (docs/benchmarks.md). The job never waits on it: the sender is a background thread, and exit is bounded apart.
    timeout_s: float = 5.0
    exit_wait_s: float = 2.0  # the most interpreter exit ever waits for the last events
    max_pending: int = 4096  # events kept while the collector is away or busy; heartbeats make room (buffer.py)
    batch_max: int = 512  # events per POST
    backoff_max_s: float = 5.0
    ready_after_s: float = 60.0  # fallback: ready after this long with no initialization activity
    ca_file: Optional[str] = None  # https://: the CAs to trust (MESHSCOPE_CA_FILE), else the system's
    # MESHSCOPE_PROTOCOL: "meshscope" (meshscope.event/1 to <url>/api/v1/events) or "otlp" (OTLP/HTTP JSON logs to
    # <url>/v1/logs, e.g. a node-local OpenTelemetry Collector's OTLP receiver, http://127.0.0.1:4318)
    protocol: str = "meshscope"

    @property
    def events_url(self) -> str:
        base = self.url.rstrip("/")
        if self.protocol == "otlp":
            return base if base.endswith("/v1/logs") else base + "/v1/logs"
        return base + "/api/v1/events"

    @staticmethod
    def from_env(env: Optional[Mapping[str, str]] = None) -> Optional["Config"]:
        """None when MESHSCOPE_URL is unset or not an http(s) URL, or MESHSCOPE_PROTOCOL is neither "meshscope"
        nor "otlp": the reporter then does nothing."""
        env = os.environ if env is None else env
        url = env.get("MESHSCOPE_URL", "").strip()
        if not url:
            return None
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return None
        protocol = env.get("MESHSCOPE_PROTOCOL", "").strip().lower() or "meshscope"
        if protocol not in PROTOCOLS:
            return None
        token = env.get("MESHSCOPE_TOKEN", "").strip() or None
        token_file = env.get("MESHSCOPE_TOKEN_FILE", "").strip()
        if token is None and token_file:
            try:
                with open(token_file, encoding="utf-8") as handle:
                    token = handle.read().strip() or None
            except OSError:
                token = None
        return Config(
            url=url,
            token=token,
            job=job_from_env(env),
            heartbeat_s=_float(env, "MESHSCOPE_HEARTBEAT_S", 5.0, 0.05, 3600.0),
            timeout_s=_float(env, "MESHSCOPE_TIMEOUT_S", 5.0, 0.05, 30.0),
            exit_wait_s=_float(env, "MESHSCOPE_EXIT_WAIT_S", 2.0, 0.0, 2.0),
            max_pending=_int(env, "MESHSCOPE_MAX_PENDING", 4096, 16, 1 << 20),
            batch_max=_int(env, "MESHSCOPE_BATCH_MAX", 512, 1, 100000),
            backoff_max_s=_float(env, "MESHSCOPE_BACKOFF_MAX_S", 5.0, 0.05, 300.0),
            ready_after_s=_float(env, "MESHSCOPE_READY_AFTER_S", 60.0, 0.1, 86400.0),
            ca_file=env.get("MESHSCOPE_CA_FILE", "").strip() or None,
            protocol=protocol,
        )
