#!/usr/bin/env python3
"""Runs `meshscope simulate --per-rank` through relays to a collector and reports the figures.

The ranks are spread over the relays (rank r reports to relay r mod R), the dashboards watch the collector
itself. Samples the collector and every relay (CPU from /proc/PID/stat, RSS from /proc/PID/status) and
the collector's sockets (/proc/PID/fd links "socket:[...]") every 0.5 s while the simulator runs. Stdlib
only; the sampling helpers are storm_report.py's. Exit status 1 when a rank's ready was not acknowledged
or the job has findings.
"""
import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from storm_report import (JobPoller, add_tier_arguments, cpu_percent, generator_counts, get,  # noqa: E402
                          layout, listen_overflows, peak_rss_mib, sample, tier_command)


def sockets(pid):
    fds = f"/proc/{pid}/fd"
    n = 0
    for fd in os.listdir(fds):
        try:
            n += os.readlink(f"{fds}/{fd}").startswith("socket:")
        except OSError:
            pass  # closed while we looked
    return n


def main():
    p = argparse.ArgumentParser(description=__doc__)
    add_tier_arguments(p)
    p.add_argument("--relay-pids", required=True, help="comma-separated")
    p.add_argument("--relay-urls", required=True, help="comma-separated")
    a = p.parse_args()
    os.environ["no_proxy"] = "*"
    relay_pids = [int(x) for x in a.relay_pids.split(",")]

    dp, cp, ep = layout(a.ranks)
    job = f"relay-storm-{a.ranks}"
    duration = a.window + a.storm_allowance + a.steady
    command = tier_command(a, job, a.relay_urls)
    print("==", " ".join(command), flush=True)
    overflows_before = listen_overflows()
    pids = [a.pid] + relay_pids
    samples = {pid: [sample(pid)] for pid in pids}
    socket_samples = [(time.monotonic(), sockets(a.pid))]
    poller = JobPoller(a.url, job, a.ranks)
    poller.start()
    sim = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    while sim.poll() is None:
        time.sleep(0.5)
        for pid in pids:
            samples[pid].append(sample(pid))
        socket_samples.append((time.monotonic(), sockets(a.pid)))
    out, err = sim.communicate()
    poller.stop.set()
    poller.join()
    for pid in pids:
        samples[pid].append(sample(pid))
    overflows_after = listen_overflows()
    if err.strip():
        print(err.strip(), file=sys.stderr)
    summary = json.loads(out.strip().splitlines()[-1])

    origin = summary["clock_origin_s"]
    first = summary.get("first_connect_s")
    last = summary.get("last_ready_s")
    report = {
        "ranks": summary["ranks"],
        "relays": len(relay_pids),
        "layout": {"dp": dp, "cp": cp, "ep": ep},
        "processes": summary["processes"],
        "ready_acked": summary["ready_acked"],
        "first_connect_to_last_ready_s": summary.get("first_connect_to_last_ready_s"),
        # The collector's own count (polled every 0.25 s): every rank ready, though some answers were late.
        "first_connect_to_last_ready_stored_s": poller.storm_end(summary),
        "ranks_ready_at_collector_max": poller.ready_max,
        "ready_latency_s": summary.get("ready_latency_s"),
        **generator_counts(summary),
        "listen_overflows": overflows_after[0] - overflows_before[0],
        "listen_drops": overflows_after[1] - overflows_before[1],
        "collector_sockets_max": max(n for _, n in socket_samples),
    }

    def figures(pid):
        s = samples[pid]
        f = {"cpu_s_total": round(s[-1][1] - s[0][1], 2), "vm_hwm_mib": round(s[-1][3] / 1024, 1)}
        if first is not None and last is not None:
            f["storm_cpu_percent"] = cpu_percent(s, origin + first, origin + last + 0.5)
            f["storm_peak_rss_mib"] = peak_rss_mib(s, origin + first, origin + last + 0.5)
            f["steady_cpu_percent"] = cpu_percent(s, origin + last + 5, origin + duration - 1)
        return f

    report["collector"] = figures(a.pid)
    report["relays_each"] = [figures(pid) for pid in relay_pids]
    report["relays_cpu_s_total"] = round(sum(f["cpu_s_total"] for f in report["relays_each"]), 2)
    report["relays_vm_hwm_mib_max"] = max(f["vm_hwm_mib"] for f in report["relays_each"])
    report["dashboards"] = [
        {k: d.get(k) for k in ("seen", "missed", "delay_ms", "error") if d.get(k) is not None}
        for d in summary.get("dashboards", [])
    ]
    # The relays' own counters (GET /api/v1/relay: refusals by expected wait, expiries, joined duplicates,
    # shed heartbeats), summed; a relay without that endpoint (before 3ecffe8) adds nothing.
    totals = {}
    for url in a.relay_urls.split(","):
        try:
            counters = json.loads(get(f"{url}/api/v1/relay")[1])
        except Exception:  # noqa: BLE001 - an older relay answers 404
            continue
        for k, v in counters.items():
            totals[k] = totals.get(k, 0) + v
    report["relays_counters"] = totals
    _, body = get(f"{a.url}/api/v1/jobs/{job}")
    job_summary = json.loads(body)
    report["job"] = {k: job_summary.get(k) for k in ("ranks_seen", "ranks_ready", "findings", "states")}
    # Each finding's kind and how many ranks it names (a false stale_rank or missing_rank shows here).
    _, body = get(f"{a.url}/api/v1/jobs/{job}/findings")
    report["findings"] = [
        {"kind": f["kind"], "ranks": len(f.get("ranks", []))} for f in json.loads(body).get("findings", [])
    ]
    ok = summary["ranks_never_ready"] == 0 and job_summary.get("findings") == 0
    print(json.dumps(report, indent=1))
    print("OK" if ok else "FAILED: not every ready was acknowledged, or the job has findings")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
