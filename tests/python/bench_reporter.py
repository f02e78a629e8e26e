"""Benchmark of the Python reporter (docs/benchmarks.md).

    python3 tests/python/bench_reporter.py [--jobs N] [--serve PATH/TO/meshscope]

1. Calling-thread cost per event: Reporter.emit with the sender thread running, collector up (the fake
   stdlib collector) and down (a refused port); and the extra cost of a wrapped call (2 events: started +
   done) over the bare function.
2. Wall time of the 8-rank FSDPTurbo job (tests/python/jobs) without the reporter, attached with the
   collector up (`meshscope serve` when --serve is given, else the fake collector) and attached with it down.
"""

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from support import free_port  # noqa: E402

from meshscope_report.config import Config  # noqa: E402
from meshscope_report.identity import identity_from_env  # noqa: E402
from meshscope_report.reporter import Reporter  # noqa: E402
from meshscope_report.wrapping import Probe, wrap  # noqa: E402


def per_event_us(url, events=20000, rounds=5, start_thread=True):
    env = {"MESHSCOPE_URL": url, "RANK": "0", "WORLD_SIZE": "8", "MESHSCOPE_MAX_PENDING": str(1 << 20)}
    results = []
    for _ in range(rounds):
        reporter = Reporter(Config.from_env(env), identity_from_env(env), warn=lambda m: None,
                            start_thread=start_thread)
        reporter.activate()
        begin = time.perf_counter()
        for i in range(events):
            reporter.emit("communicator", "done", {"groups": {"ep": [0, 1]}, "duration_s": 0.001})
        results.append((time.perf_counter() - begin) / events * 1e6)
        reporter.shutdown()
    return statistics.median(results), max(results)


class TwoEvents(Probe):
    def __init__(self, reporter):
        self.reporter = reporter

    def start(self, args, kwargs):
        self.reporter.emit("communicator", "started", {"groups": {"ep": [0, 1]}})

    def done(self, token, result, seconds):
        self.reporter.emit("communicator", "done", {"groups": {"ep": [0, 1]}, "duration_s": seconds})


def wrapped_call_us(url, calls=20000):
    env = {"MESHSCOPE_URL": url, "RANK": "0", "WORLD_SIZE": "8", "MESHSCOPE_MAX_PENDING": str(1 << 20)}
    reporter = Reporter(Config.from_env(env), identity_from_env(env), warn=lambda m: None)
    reporter.activate()

    def new_group(ranks=None):
        return ranks

    wrapped = wrap(new_group, TwoEvents(reporter))
    ranks = [0, 1]
    begin = time.perf_counter()
    for _ in range(calls):
        new_group(ranks)
    bare = time.perf_counter() - begin
    begin = time.perf_counter()
    for _ in range(calls):
        wrapped(ranks)
    hooked = time.perf_counter() - begin
    reporter.shutdown()
    return (hooked - bare) / calls * 1e6


def job_seconds(mode, url, runs):
    from job_launch import attach_env, launch_workers

    times = []
    for _ in range(runs):
        env = attach_env(attach=False) if mode == "off" else attach_env(url=url)
        job = launch_workers(env, ["--ep", "2"], run_id=f"bench-{mode}-{free_port()}")
        codes = job.wait(timeout=180)
        if codes != [0] * 8:
            raise SystemExit(f"job failed ({mode}): {codes}\n{job.output()[-2000:]}")
        times.append(job.seconds)
    return times


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=2, help="runs of the 8-rank job per mode (0: skip)")
    parser.add_argument("--serve", default="", help="meshscope binary: use `meshscope serve` as the collector")
    args = parser.parse_args()

    # The fake collector runs in its own process: in this one, its JSON parsing would compete for the GIL
    # with the loop being timed.
    import subprocess

    fake = subprocess.Popen([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                          "fake_collector.py"), "--quiet"],
                            stdout=subprocess.PIPE, text=True)
    collector = type("Fake", (), {"url": fake.stdout.readline().strip()})()
    down = f"http://127.0.0.1:{free_port()}"
    print(f"python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    median, worst = per_event_us(down, start_thread=False)
    print(f"emit per event, no sender thread running: median {median:.2f} us, worst round {worst:.2f} us")
    for name, url in (("collector up (fake)", collector.url), ("collector down", down)):
        median, worst = per_event_us(url)
        print(f"emit per event, {name}: median {median:.2f} us, worst round {worst:.2f} us")
        print(f"wrapped call (2 events) extra cost, {name}: {wrapped_call_us(url):.2f} us")
    if args.jobs:
        serve = None
        up_url, up_name = collector.url, "fake collector"
        if args.serve:
            from meshscope_serve import MeshScopeServe

            serve = MeshScopeServe(args.serve)
            up_url, up_name = serve.url, "meshscope serve"
        try:
            for mode, url, label in (("off", None, "no reporter"), ("up", up_url, f"attached, {up_name} up"),
                                     ("down", down, "attached, collector down")):
                times = job_seconds(mode, url, args.jobs)
                print(f"8-rank job, {label}: " + ", ".join(f"{t:.2f}" for t in times) + " s")
        finally:
            if serve is not None:
                serve.close()
    fake.terminate()
    fake.wait(timeout=10)


if __name__ == "__main__":
    main()
