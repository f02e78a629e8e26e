"""A real torch.distributed gloo job of 8 ranks on CPU whose optimizer steps each take a fixed wall time, logging as
Hugging Face Trainer does: what `meshscope calibrate` reads back in test_calibrate_cli.py.

Each step every rank runs a small two-layer MLP forward and backward on its own batch, all-reduces the gradients over
the world (what data parallelism does) and takes an SGD step; then it waits until STEP_SECONDS x SLOWDOWN have passed
since the step began. That wait is the injected slowdown: with a step far shorter than STEP_SECONDS the run's step
time is STEP_SECONDS x SLOWDOWN whatever the machine's load, so two runs differ by exactly the factor injected.

Rank 0 writes the log as transformers' ProgressCallback does (`str(logs)` per logging step, then the final metrics of
trainer_utils.speed_metrics: runtime rounded to 4 decimals, rates to 3).

Usage: calibrate_job.py LOG SLOWDOWN
"""
import datetime
import multiprocessing
import os
import socket
import sys
import time

os.environ["CUDA_VISIBLE_DEVICES"] = ""
os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
os.environ.setdefault("OMP_NUM_THREADS", "1")

WORLD = 8
STEPS = 8
LOGGING_STEPS = 4
STEP_SECONDS = 0.4
BATCH = 4
DEADLINE_S = 120


def rank_main(rank, port, slowdown, log_path):
    import torch  # imported once before the fork
    import torch.distributed as dist

    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=WORLD, timeout=datetime.timedelta(seconds=DEADLINE_S))
    torch.manual_seed(rank)
    model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.GELU(), torch.nn.Linear(256, 64))
    for p in model.parameters():  # every rank starts from rank 0's weights, as DDP and FSDP do
        dist.broadcast(p.data, 0)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-2)
    lines = []
    dist.barrier()
    start = time.time()
    total_loss = 0.0
    for step in range(1, STEPS + 1):
        began = time.time()
        x = torch.randn(BATCH, 64)
        loss = ((model(x) - x) ** 2).mean()
        loss.backward()
        norm = 0.0
        for p in model.parameters():
            dist.all_reduce(p.grad)
            p.grad /= WORLD
            norm += float(p.grad.norm()) ** 2
        optimizer.step()
        optimizer.zero_grad()
        total_loss += float(loss.detach())
        remaining = began + STEP_SECONDS * slowdown - time.time()
        if remaining > 0:
            time.sleep(remaining)  # the injected step time
        if step % LOGGING_STEPS == 0:
            lines.append(str({"loss": round(float(loss.detach()), 4), "grad_norm": norm ** 0.5, "learning_rate": 1e-2,
                              "epoch": round(step / STEPS, 2)}))
    dist.barrier()
    runtime = time.time() - start
    if rank == 0:
        lines.append(str({"train_runtime": round(runtime, 4),
                          "train_samples_per_second": round(STEPS * BATCH * WORLD / runtime, 3),
                          "train_steps_per_second": round(STEPS / runtime, 3), "train_loss": total_loss / STEPS,
                          "epoch": 1.0}))
        with open(log_path, "w") as f:
            f.write("\n".join(lines) + "\n")
    dist.destroy_process_group()


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    log_path, slowdown = argv[1], float(argv[2])
    import torch  # noqa: F401  (the ranks fork with it loaded)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    context = multiprocessing.get_context("fork")
    ranks = [context.Process(target=rank_main, args=(r, port, slowdown, log_path)) for r in range(WORLD)]
    for p in ranks:
        p.start()
    for p in ranks:
        p.join(DEADLINE_S)
        if p.is_alive():
            p.kill()
            raise SystemExit("a rank did not end within the deadline")
    return 0 if all(p.exitcode == 0 for p in ranks) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
