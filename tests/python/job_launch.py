"""Start the 8-rank FSDPTurbo test job the way users do: with torchrun, or with the same environment
torchrun gives its workers (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR/PORT, TORCHELASTIC_RUN_ID) for the
variants, which saves the agent's second `import torch` on a 2-core machine. Either way the reporter
attaches only through PYTHONPATH (the autoattach dir) and MESHSCOPE_URL."""

import atexit
import os
import shutil
import signal
import subprocess
import tempfile
import time

from support import AUTOATTACH, FIXTURES, JOBS, TORCH_PYTHON, clean_env, free_port

JOB_SCRIPT = os.path.join(JOBS, "fsdpturbo_job.py")


def attach_env(url=None, token=None, job=None, attach=True, **extra):
    # loopback only; never a GPU, even on a machine that has one (the jobs are gloo, CPU)
    env = clean_env(OMP_NUM_THREADS=1, GLOO_SOCKET_IFNAME="lo", CUDA_VISIBLE_DEVICES="", **extra)
    if attach:
        env["PYTHONPATH"] = os.pathsep.join([AUTOATTACH, FIXTURES])
    else:
        env["PYTHONPATH"] = FIXTURES
    if url:
        env["MESHSCOPE_URL"] = url
    if token:
        env["MESHSCOPE_TOKEN"] = token
    if job:
        env["MESHSCOPE_JOB"] = job
    return env


class Job:
    def __init__(self, processes, started):
        self.processes = processes
        self.started = started
        self.seconds = None

    def wait(self, timeout):
        deadline = time.monotonic() + timeout
        codes = []
        for process in self.processes:
            codes.append(process.wait(timeout=max(deadline - time.monotonic(), 0.1)))
        self.seconds = time.monotonic() - self.started
        return codes

    def kill(self):
        for process in self.processes:  # each was started in its own session: this ends its children too
            if process.poll() is None:
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except OSError:
                    process.kill()
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass

    def output(self):
        text = []
        for process in self.processes:
            if process.stdout is not None and process.poll() is not None:
                text.append(process.stdout.read() or "")
        return "\n".join(text)


def launch_workers(env, job_args, world=8, run_id="meshscope-test", never_start=()):
    """torchrun's worker environment, one process per rank (no agent); the ranks in never_start are not
    launched (a node that never came up)."""
    port = free_port()
    started = time.monotonic()
    processes = []
    for rank in range(world):
        if rank in never_start:
            continue
        worker_env = dict(env, RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(world),
                          LOCAL_WORLD_SIZE=str(world), GROUP_RANK="0", MASTER_ADDR="127.0.0.1",
                          MASTER_PORT=str(port), TORCHELASTIC_RUN_ID=run_id)
        processes.append(subprocess.Popen([TORCH_PYTHON, JOB_SCRIPT, *job_args], env=worker_env,
                                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                          start_new_session=True))
    return Job(processes, started)


def launch_torchrun(env, job_args, world=8, run_id="meshscope-test"):
    """The real torchrun (the venv's `torchrun` script) with a c10d rendezvous, so TORCHELASTIC_RUN_ID = run_id."""
    log_dir = tempfile.mkdtemp(prefix="meshscope-torchrun-")
    atexit.register(shutil.rmtree, log_dir, ignore_errors=True)
    torchrun = os.path.join(os.path.dirname(TORCH_PYTHON), "torchrun")
    command = [torchrun, "--nnodes", "1", "--nproc-per-node", str(world), "--rdzv-backend", "c10d",
               "--rdzv-endpoint", f"127.0.0.1:{free_port()}", "--rdzv-id", run_id, "--max-restarts", "0",
               "--log-dir", log_dir, JOB_SCRIPT, *job_args]
    started = time.monotonic()
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               start_new_session=True)
    return Job([process], started)
