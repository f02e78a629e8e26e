#!/usr/bin/env python3
"""Runs `meshscope simulate --per-rank` against a running collector and reports the storm's figures.

Samples the collector process (utime + stime from /proc/PID/stat, VmRSS / VmHWM from /proc/PID/status)
every 0.5 s while the simulator runs. The storm is from the first connection to the last ready
acknowledgement; the steady state is from 5 s after that to 1 s before the run ends (heartbeats only).
The simulator's summary carries its run clock's origin on CLOCK_MONOTONIC (`clock_origin_s`), the clock
time.monotonic() reads, so the two line up. Stdlib only. Exit status 1 when a rank's ready was not
acknowledged or (against the collector) the job has findings.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

TICKS = os.sysconf("SC_CLK_TCK")


def layout(ranks):
    """dp x cp = ranks with cp the largest divisor <= sqrt(ranks): groups stay small (a rank's events
    carry its dp and cp groups), ep 8 when it divides dp."""
    cp = max(d for d in range(1, int(math.isqrt(ranks)) + 1) if ranks % d == 0)
    dp = ranks // cp
    return dp, cp, 8 if dp % 8 == 0 else 1


def sample(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime (fields 14 and 15)
    rss = hwm = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
            elif line.startswith("VmHWM:"):
                hwm = int(line.split()[1])
    return time.monotonic(), cpu, rss, hwm


def cpu_percent(samples, start, end):
    inside = [s for s in samples if start <= s[0] <= end]
    if len(inside) < 2 or inside[-1][0] - inside[0][0] < 1:
        return None
    return round(100 * (inside[-1][1] - inside[0][1]) / (inside[-1][0] - inside[0][0]), 1)


def peak_rss_mib(samples, start, end):
    inside = [s[2] for s in samples if start <= s[0] <= end]
    return round(max(inside) / 1024, 1) if inside else None


def listen_overflows():
    """The kernel's TcpExt ListenOverflows and ListenDrops (system-wide): SYNs dropped because an accept
    queue was full, which a 1 s reporter timeout turns into timeouts."""
    with open("/proc/net/netstat") as f:
        lines = [line.split() for line in f if line.startswith("TcpExt:")]
    values = dict(zip(lines[0][1:], (int(v) for v in lines[1][1:])))
    return values.get("ListenOverflows", 0), values.get("ListenDrops", 0)


def get(url):
    begin = time.monotonic()
    with urllib.request.urlopen(urllib.request.Request(url), timeout=60) as reply:
        body = reply.read()
    return time.monotonic() - begin, body

class JobPoller(threading.Thread):
    """Polls the collector's job every 0.25 s: when it first counted every rank ready or past it (`ranks_ready` +
    `exited`; time.monotonic()), the most it counted, and its last answer."""

    def __init__(self, url, job, ranks):
        super().__init__(daemon=True)
        self.url, self.job, self.ranks = url, job, ranks
        self.all_ready_at = None
        self.ready_max = 0
        self.last = {}
        self.stop = threading.Event()

    def poll(self):
        try:
            self.last = json.loads(get(f"{self.url}/api/v1/jobs/{self.job}")[1])
        except urllib.error.HTTPError:
            return  # 404 until the job's first event
        except (OSError, ValueError):
            return  # no answer in time from a drowning collector: the next poll
        ready = self.last.get("ranks_ready", 0) + self.last.get("states", {}).get("exited", 0)
        self.ready_max = max(self.ready_max, ready)
        if self.all_ready_at is None and ready == self.ranks:
            self.all_ready_at = time.monotonic()

    def storm_end(self, summary):
        """Seconds from the first connection to the poll that counted every rank ready; None if none did."""
        first = summary.get("first_connect_s")
        if self.all_ready_at is None or first is None:
            return None
        return round(self.all_ready_at - summary["clock_origin_s"] - first, 2)

    def run(self):
        while not self.stop.wait(0.25):
            self.poll()


def generator_counts(summary):
    """What `meshscope simulate`'s summary counts of the ranks' requests, as every storm report prints it."""
    return {key: summary[key] for key in ("refusals", "timeouts", "failures", "retries", "reconnects", "heartbeats")}


def add_tier_arguments(p, ranks=65536):
    """The arguments every storm through a fan-in tier takes (relay_storm_report.py, otel_storm_report.py)."""
    p.add_argument("--meshscope", required=True)
    p.add_argument("--pid", type=int, required=True, help="the collector process")
    p.add_argument("--url", required=True, help="the collector")
    p.add_argument("--ranks", type=int, default=ranks)
    p.add_argument("--window", type=float, default=10)
    p.add_argument("--steady", type=float, default=20, help="seconds of heartbeats after the storm")
    p.add_argument("--storm-allowance", type=float, default=40, help="seconds the storm may take past the window")
    p.add_argument("--dashboards", type=int, default=4)
    p.add_argument("--request-timeout", type=float, help="the ranks' per-request timeout (simulate's default: 5 s)")
    p.add_argument("--per-process", type=int, default=16384, help="ranks a generator process holds at most")


def tier_command(a, job, targets, *extra):
    """`meshscope simulate` for a storm through a tier: each rank its own connection to one of `targets`
    (comma-separated), the dashboards on the collector, enough generator processes for the descriptor limit."""
    dp, cp, ep = layout(a.ranks)
    duration = a.window + a.storm_allowance + a.steady
    command = [a.meshscope, "simulate", "--per-rank", *extra, "--target", targets, "--dashboard-target", a.url,
               "--dashboards", str(a.dashboards), "--job", job, "--dp", str(dp), "--cp", str(cp), "--ep", str(ep),
               "--start-window", str(a.window), "--duration", str(duration),
               "--processes", str(math.ceil(a.ranks / a.per_process))]
    if a.request_timeout:
        command += ["--request-timeout", str(a.request_timeout)]
    return command


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--meshscope", required=True)
    p.add_argument("--pid", type=int, required=True, help="the collector process")
    p.add_argument("--url", required=True)
    p.add_argument("--ranks", type=int, default=16384)
    p.add_argument("--window", type=float, default=3)
    p.add_argument("--steady", type=float, default=60, help="seconds of heartbeats after the storm")
    p.add_argument("--storm-allowance", type=float, default=30, help="seconds the storm may take past the window")
    p.add_argument("--dashboards", type=int, default=20)
    p.add_argument("--processes", type=int)
    p.add_argument("--baseline", action="store_true", help="the target has no stream and no job API")
    a = p.parse_args()
    os.environ["no_proxy"] = "*"

    dp, cp, ep = layout(a.ranks)
    job = f"storm-{a.ranks}"
    duration = a.window + a.storm_allowance + a.steady
    command = [a.meshscope, "simulate", "--per-rank", "--target", a.url, "--job", job, "--dp", str(dp), "--cp",
               str(cp), "--ep", str(ep), "--start-window", str(a.window), "--duration", str(duration),
               "--dashboards", str(0 if a.baseline else a.dashboards)]
    if a.processes:
        command += ["--processes", str(a.processes)]
    print("==", " ".join(command), flush=True)
    overflows_before = listen_overflows()
    samples = [sample(a.pid)]
    poller = None if a.baseline else JobPoller(a.url, job, a.ranks)
    if poller:
        poller.start()
    sim = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    while sim.poll() is None:
        time.sleep(0.5)
        samples.append(sample(a.pid))
    out, err = sim.communicate()
    if poller:
        poller.stop.set()
        poller.join()
    samples.append(sample(a.pid))
    overflows_after = listen_overflows()
    if err.strip():
        print(err.strip(), file=sys.stderr)
    summary = json.loads(out.strip().splitlines()[-1])

    origin = summary["clock_origin_s"]
    first = summary.get("first_connect_s")
    last = summary.get("last_ready_s")
    report = {
        "target": "qhttpserver_baseline" if a.baseline else "meshscope serve",
        "ranks": summary["ranks"],
        "layout": {"dp": dp, "cp": cp, "ep": ep},
        "processes": summary["processes"],
        "ready_acked": summary["ready_acked"],
        "first_connect_to_last_ready_s": summary.get("first_connect_to_last_ready_s"),
        # The collector's own count (polled every 0.25 s): every rank ready, though some answers were late.
        "first_connect_to_last_ready_stored_s": poller.storm_end(summary) if poller else None,
        "ranks_ready_at_collector_max": poller.ready_max if poller else None,
        "ready_latency_s": summary.get("ready_latency_s"),
        **generator_counts(summary),
        "listen_overflows": overflows_after[0] - overflows_before[0],
        "listen_drops": overflows_after[1] - overflows_before[1],
    }
    if first is not None and last is not None:
        report["storm_cpu_percent"] = cpu_percent(samples, origin + first, origin + last + 0.5)
        report["storm_peak_rss_mib"] = peak_rss_mib(samples, origin + first, origin + last + 0.5)
        steady_start, steady_end = origin + last + 5, origin + duration - 1
        report["steady_window_s"] = round(max(0.0, steady_end - steady_start), 1)
        report["steady_cpu_percent"] = cpu_percent(samples, steady_start, steady_end)
        report["steady_rss_mib"] = peak_rss_mib(samples, steady_start, steady_end)
    report["vm_hwm_mib"] = round(samples[-1][3] / 1024, 1)
    report["collector_cpu_s_total"] = round(samples[-1][1] - samples[0][1], 2)

    ok = summary["ranks_never_ready"] == 0
    if not a.baseline:
        report["dashboards"] = [
            {k: d.get(k) for k in ("seen", "missed", "delay_ms", "delay_from_send_ms", "error") if d.get(k) is not None}
            for d in summary.get("dashboards", [])
        ]
        _, body = get(f"{a.url}/api/v1/jobs/{job}")
        job_summary = json.loads(body)
        report["job"] = {k: job_summary.get(k) for k in ("ranks_seen", "ranks_ready", "findings", "states")}
        ok = ok and job_summary.get("findings") == 0
        for name in ("ranks_first", "ranks_again"):
            seconds, body = get(f"{a.url}/api/v1/jobs/{job}/ranks")
            report[name] = {"seconds": round(seconds, 3), "bytes": len(body)}
    print(json.dumps(report, indent=1))
    print("OK" if ok else "FAILED: not every ready was acknowledged, or the job has findings")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
