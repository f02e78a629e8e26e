"""Shared helpers for the Python tests: paths, the fake clock, a black-hole server, free ports, the OpenTelemetry
Collector binary, stopping a child."""

import os
import socket
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
CLIENT = os.path.join(ROOT, "clients", "python")
AUTOATTACH = os.path.join(CLIENT, "autoattach")
FIXTURES = os.path.join(HERE, "fixtures")
JOBS = os.path.join(HERE, "jobs")
# torch 2.x lives in the project's .venv (scripts/bootstrap.sh torch); ctest passes MESHSCOPE_VENV_PYTHON as this.
TORCH_PYTHON = os.environ.get("MESHSCOPE_TORCH_PYTHON", os.path.join(ROOT, ".venv", "bin", "python"))

if CLIENT not in sys.path:
    sys.path.insert(0, CLIENT)


def torch_python_available() -> bool:
    import subprocess

    if not os.path.exists(TORCH_PYTHON):
        return False
    # find_spec, not import: importing torch costs seconds of CPU, and the tests import it soon enough
    code = "import importlib.util as u; assert u.find_spec('torch') and u.find_spec('torch.distributed')"
    probe = subprocess.run([TORCH_PYTHON, "-c", code], capture_output=True, timeout=60)
    return probe.returncode == 0


class FakeClock:
    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> float:
        self.now += seconds
        return self.now


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class BlackHole:
    """A listening socket that never accepts: connects succeed (backlog), answers never come."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def close(self) -> None:
        self.sock.close()


def clean_env(**extra) -> dict:
    """The current environment without any MESHSCOPE_* or launcher variables, plus `extra`."""
    drop = ("MESHSCOPE_", "RANK", "WORLD_SIZE", "LOCAL_RANK", "SLURM_", "OMPI_", "PMI_", "TORCHELASTIC_",
            "MASTER_", "GROUP_RANK", "LOCAL_WORLD_SIZE", "PYTHONPATH")
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    env.update({k: str(v) for k, v in extra.items()})
    return env


def otelcol(test) -> str:
    """The OpenTelemetry Collector binary the OTel tests run: scripts/otelcol.sh builds it from its Go modules
    once into its cache and prints its path. A failed build fails `test` with the build's message."""
    built = subprocess.run(["bash", os.path.join(ROOT, "scripts", "otelcol.sh")], capture_output=True, text=True,
                           timeout=3600)
    test.assertEqual(built.returncode, 0, built.stderr[-4000:])
    return built.stdout.strip().splitlines()[-1]


def stop(process) -> None:
    """Ends a child that may still run: SIGTERM, 20 s to exit, then SIGKILL."""
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
