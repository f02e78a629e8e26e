#!/usr/bin/env python3
"""Runs `meshscope simulate --per-rank --protocol otlp` through OpenTelemetry Collector agents to a collector and
reports the figures (otel_storm.sh; docs/benchmarks/otel.md).

The ranks are spread over the agents (rank r reports to agent r mod A); the dashboards watch the collector itself.
An agent acknowledges a rank's request when its pipeline took it, before the collector has stored it, so the
figures are the collector's: its job (GET /api/v1/jobs/JOB) is polled every 0.25 s while the simulator runs, and
the storm ends when the collector counts every rank ready. After the run the agents are given up to --drain seconds
to deliver what they acknowledged (every rank exited and the job's event count still for 3 s), then the job is
exported (`meshscope export`) and its lifecycle events (not heartbeats) counted against what the ranks' scripts
hold plus each exit an agent acknowledged: lost (expected and not stored), duplicates stored (stored twice: the
collector stores each event once, so 0) and duplicates dropped (copies the collector did not store again, its
meshscope_events_duplicate_total: a request the rank or an agent sent again after the first had got through). An
event is (rank, phase, status, ts): a request sent again carries the same bytes. Samples the collector and every agent (CPU from /proc/PID/stat, RSS from
/proc/PID/status) every 0.5 s. Stdlib only; the sampling helpers are storm_report.py's. Exit status 1 when a rank's
ready never reached the collector, an expected event was lost or stored twice, or the job has findings.

`--agent-config PORT COLLECTOR_URL QUEUE_DIR LIMIT_MIB QUEUE` prints one agent's config instead (JSON is YAML).
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from storm_report import (JobPoller, add_tier_arguments, cpu_percent, generator_counts, get,  # noqa: E402
                          layout, peak_rss_mib, sample, tier_command)


def agent_config(port, collector_url, queue_dir, limit_mib, queue):
    """deploy/otelcol/agent.yaml's node agent straight to the collector (no gateway): OTLP/HTTP receiver,
    memory_limiter (`limit_mib`), batch (512 records or 20 ms), the otlp_http exporter (JSON, uncompressed) with
    retry_on_failure and a sending queue (on file_storage unless `queue` is "memory"); its own telemetry off."""
    sending_queue = {"enabled": True}
    service = {"telemetry": {"metrics": {"level": "none"}},
               "pipelines": {"logs": {"receivers": ["otlp"], "processors": ["memory_limiter", "batch"],
                                      "exporters": ["otlp_http"]}}}
    config = {
        "receivers": {"otlp": {"protocols": {"http": {"endpoint": f"127.0.0.1:{port}"}}}},
        "processors": {"memory_limiter": {"check_interval": "1s", "limit_mib": int(limit_mib)},
                       "batch": {"send_batch_size": 512, "send_batch_max_size": 512, "timeout": "20ms"}},
        "exporters": {"otlp_http": {"endpoint": collector_url, "encoding": "json", "compression": "none",
                                    "retry_on_failure": {"enabled": True}, "sending_queue": sending_queue}},
        "service": service,
    }
    if queue == "file":
        sending_queue["storage"] = "file_storage"
        config["extensions"] = {"file_storage": {"directory": queue_dir}}
        service["extensions"] = ["file_storage"]
    return config


def lifecycle_events(meshscope, db, job):
    """The job's stored lifecycle events (heartbeats left out), as (rank, phase, status, ts) tuples, with repeats."""
    out = subprocess.run([meshscope, "export", "--db", db, "--job", job], capture_output=True, text=True, check=True)
    events = []
    for line in out.stdout.splitlines():
        e = json.loads(line)
        if "phase" not in e or e["phase"] == "heartbeat":
            continue
        events.append((e["rank"], e["phase"], e["status"], e.get("ts")))
    return events


def metric(url, name):
    """A counter of the collector's GET /metrics, or None when it has none of that name."""
    _, body = get(f"{url}/metrics")
    for line in body.decode().splitlines():
        if line.startswith(name + " "):
            return int(float(line.split()[1]))
    return None


def agent_log_counts(path):
    """What an agent's log says it did: retries of a failed export, data dropped, data refused by the limiter."""
    counts = collections.Counter()
    try:
        with open(path, errors="replace") as f:
            for line in f:
                if "Will retry the request" in line:
                    counts["export_retries"] += 1
                elif "Dropping data" in line or "Rejecting data" in line:  # retries given up, or the queue full
                    counts["drops"] += 1
                elif "above soft limit" in line:  # memory_limiter: refusing the receiver's requests
                    counts["limiter_above_soft_limit"] += 1
    except OSError:
        pass
    return dict(counts)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--agent-config":
        print(json.dumps(agent_config(*sys.argv[2:7])))
        return 0
    p = argparse.ArgumentParser(description=__doc__)
    add_tier_arguments(p)
    p.add_argument("--db", required=True, help="the collector's database (for `meshscope export`)")
    p.add_argument("--agent-pids", required=True, help="comma-separated")
    p.add_argument("--agent-urls", required=True, help="comma-separated")
    p.add_argument("--agent-logs", help="comma-separated: each agent's log, counted for retries and drops")
    p.add_argument("--drain", type=float, default=120, help="seconds the agents may take to deliver after the run")
    a = p.parse_args()
    os.environ["no_proxy"] = "*"
    agent_pids = [int(x) for x in a.agent_pids.split(",")]

    dp, cp, ep = layout(a.ranks)
    job = f"otel-storm-{a.ranks}"
    duration = a.window + a.storm_allowance + a.steady
    command = tier_command(a, job, a.agent_urls, "--protocol", "otlp")
    print("==", " ".join(command), flush=True)
    pids = [a.pid] + agent_pids
    samples = {pid: [sample(pid)] for pid in pids}
    poller = JobPoller(a.url, job, a.ranks)
    poller.start()
    sim = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    while sim.poll() is None:
        time.sleep(0.5)
        for pid in pids:
            samples[pid].append(sample(pid))
    out, err = sim.communicate()
    sim_end = time.monotonic()
    if err.strip():
        print(err.strip(), file=sys.stderr)
    summary = json.loads(out.strip().splitlines()[-1])
    scripted, exits_acked = summary["lifecycle_events_scripted"], summary["exits_acked"]

    # The agents deliver what they acknowledged: every rank's exit, and then nothing new for 3 s.
    still_since, events_seen = time.monotonic(), None
    while time.monotonic() - sim_end < a.drain:
        time.sleep(0.5)
        for pid in pids:
            samples[pid].append(sample(pid))
        poller.poll()
        job_now = poller.last
        if job_now.get("events") != events_seen:
            events_seen, still_since = job_now.get("events"), time.monotonic()
        exited = job_now.get("states", {}).get("exited", 0)
        if exited == summary["ranks"] and time.monotonic() - still_since >= 3:
            break
    drained_s = time.monotonic() - sim_end
    poller.stop.set()
    poller.join()
    for pid in pids:
        samples[pid].append(sample(pid))

    stored = lifecycle_events(a.meshscope, a.db, job)
    distinct = set(stored)
    distinct_exits = sum(1 for e in distinct if e[1] == "exit")
    # Scripted events missing, and acknowledged exits missing (an exit whose answer never came may be stored too).
    lost = (scripted - (len(distinct) - distinct_exits)) + max(0, exits_acked - distinct_exits)
    origin = summary["clock_origin_s"]
    first = summary.get("first_connect_s")
    last_ack = summary.get("last_ready_s")
    stored_at = poller.all_ready_at - origin if poller.all_ready_at is not None else None  # run clock
    report = {
        "ranks": summary["ranks"],
        "agents": len(agent_pids),
        "layout": {"dp": dp, "cp": cp, "ep": ep},
        "processes": summary["processes"],
        "ready_acked_by_agents": summary["ready_acked"],
        "first_connect_to_last_ready_acked_s": summary.get("first_connect_to_last_ready_s"),
        "first_connect_to_last_ready_stored_s": poller.storm_end(summary),
        "ranks_ready_at_collector_max": poller.ready_max,
        "ready_latency_s": summary.get("ready_latency_s"),
        **generator_counts(summary),
        "lifecycle_events_expected": scripted + exits_acked,
        "lifecycle_events_acked_by_agents": summary["lifecycle_events_acked"],
        "lifecycle_events_stored": len(stored),
        "lifecycle_events_lost": lost,
        "duplicates_stored": len(stored) - len(distinct),
        "duplicates_dropped": metric(a.url, "meshscope_events_duplicate_total"),
        "drain_s": round(drained_s, 1),
    }

    def figures(pid, end):
        s = samples[pid]
        f = {"cpu_s_total": round(s[-1][1] - s[0][1], 2), "vm_hwm_mib": round(s[-1][3] / 1024, 1)}
        if first is not None and end is not None:
            f["storm_cpu_percent"] = cpu_percent(s, origin + first, origin + end + 0.5)
            f["storm_peak_rss_mib"] = peak_rss_mib(s, origin + first, origin + end + 0.5)
            f["steady_cpu_percent"] = cpu_percent(s, origin + end + 5, origin + duration - 1)
        return f

    storm_end = stored_at if stored_at is not None else last_ack
    report["collector"] = figures(a.pid, storm_end)
    report["agents_each"] = [figures(pid, storm_end) for pid in agent_pids]
    report["agents_cpu_s_total"] = round(sum(f["cpu_s_total"] for f in report["agents_each"]), 2)
    report["agents_vm_hwm_mib_max"] = max(f["vm_hwm_mib"] for f in report["agents_each"])
    if a.agent_logs:
        totals = collections.Counter()
        for path in a.agent_logs.split(","):
            totals.update(agent_log_counts(path))
        report["agents_logged"] = dict(totals)
    report["dashboards"] = [
        {k: d.get(k) for k in ("seen", "missed", "delay_ms", "error") if d.get(k) is not None}
        for d in summary.get("dashboards", [])
    ]
    job_summary = poller.last
    report["job"] = {k: job_summary.get(k) for k in ("ranks_seen", "ranks_ready", "findings", "states", "events")}
    _, body = get(f"{a.url}/api/v1/jobs/{job}/findings")
    report["findings"] = [
        {"kind": f["kind"], "ranks": len(f.get("ranks", []))} for f in json.loads(body).get("findings", [])
    ]
    ok = (summary["ranks_never_ready"] == 0 and stored_at is not None and report["lifecycle_events_lost"] == 0
          and report["duplicates_stored"] == 0 and job_summary.get("findings") == 0)
    print(json.dumps(report, indent=1))
    print("OK" if ok else "FAILED: a ready never reached the collector, an expected event was lost or stored twice, "
          "or the job has findings")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
