// OtlpExporter: `meshscope serve --otlp-export URL` (docs/collector-metrics.md, "OTLP export"). Sends what the
// collector finds to a site's OpenTelemetry Collector over OTLP/HTTP JSON, from its own thread (ms-otlp), so that
// ingest never waits on it:
//   - every finding change (the monitor's change stream) as a log record, POST URL/v1/logs (otlp_body.h);
//   - every `interval` each job's rank states and findings by kind as gauges, POST URL/v1/metrics.
// Bounds: the monitor thread only copies a change into a queue of at most `max_queued` findings, one entry per
// finding (a newer change of a finding replaces its entry not yet sent); a finding that finds the queue full is
// dropped and counted. Metrics are never queued: each export reads the counts of that moment, so a later one
// replaces one not sent, and they never take a finding's room. A request that gets no answer, 429, 502, 503 or 504 is
// tried again after a backoff (0.5 s doubling up to `max_backoff`, jittered; a Retry-After is honoured), the
// findings first; another answer drops the request's records (counted). The counts are in GET /metrics
// (meshscope_otlp_export_*) and each failure is logged to stderr, at most once a minute.
//
//   server::OtlpExporter exporter(collector, {.url = "http://agent:4318"});
//   // ... until the collector stops; the destructor sends what is queued once more (at most 2 s), then stops
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "meshscope/monitor/monitor.h"

namespace meshscope::server {

class Collector;

struct OtlpExportOptions {
    std::string url;  // the endpoint's base URL, valid (otlp_export_url_error): /v1/logs and /v1/metrics are added
    std::chrono::milliseconds interval{15000};     // between two metrics exports
    std::chrono::milliseconds timeout{10000};      // one request, connect included
    std::size_t max_queued = 10000;                // findings waiting to be sent
    std::size_t max_batch = 512;                   // log records in one request (and at most ~1 MiB of them)
    std::size_t max_metrics_jobs = 64;             // jobs in one metrics request
    std::size_t max_metrics_communicators = 1024;  // and their communicators' series (6 points, ~2.3 KB, each)
    std::vector<std::string> headers;              // more header lines on every request ("Authorization: ..."), valid
    std::chrono::milliseconds first_backoff{500};
    std::chrono::milliseconds max_backoff{30000};
};

// Why `url` cannot be an export URL, or nullopt: an http:// or https:// URL with a host, an optional port from 1 to
// 65535 and an optional path, not ending in /v1/logs or /v1/metrics (the exporter adds them).
[[nodiscard]] std::optional<std::string> otlp_export_url_error(const std::string& url);
// Why `line` cannot be a header line of the export's requests, or nullopt: "Name: value", the name of HTTP's token
// characters (letters, digits, !#$%&'*+-.^_`|~), the value without control characters. The message does not repeat
// the value (it is often a secret).
[[nodiscard]] std::optional<std::string> otlp_header_error(const std::string& line);

struct OtlpExportStats {
    std::int64_t findings_sent = 0;     // log records the endpoint accepted
    std::int64_t findings_dropped = 0;  // not queued (queue full) or still queued at shutdown
    std::int64_t findings_failed = 0;   // refused by the endpoint (4xx other than 429, partial success)
    std::int64_t findings_queued = 0;   // waiting now
    std::int64_t metrics_sent = 0;      // metrics exports the endpoint accepted
    std::int64_t metrics_failed = 0;    // metrics exports that failed (the next one replaces them)
    std::int64_t retries = 0;           // requests tried again after a backoff
};

class OtlpExporter {
public:
    // Subscribes to the collector's changes and starts the sender thread.
    OtlpExporter(Collector& collector, OtlpExportOptions options);
    ~OtlpExporter();
    OtlpExporter(const OtlpExporter&) = delete;
    OtlpExporter& operator=(const OtlpExporter&) = delete;

    [[nodiscard]] OtlpExportStats stats() const;
    // The counters as Prometheus text (GET /metrics).
    [[nodiscard]] std::string metrics_text() const;

private:
    struct Pending {
        std::string key;  // job + '\0' + finding id
        std::string job;
        ChangeKind change = ChangeKind::finding_added;
        std::string record;  // otlp_log_record's text
        std::uint64_t version = 0;
    };
    void on_change(const Change& change);
    void run();
    void log_failure(const std::string& what);

    Collector& collector_;
    OtlpExportOptions options_;
    int listener_ = 0;
    int metrics_source_ = 0;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::list<Pending> queue_;
    std::unordered_map<std::string, std::list<Pending>::iterator> index_;
    std::uint64_t next_version_ = 1;
    bool stopping_ = false;
    std::atomic<bool> abort_{false};  // ends a request in flight at shutdown
    OtlpExportStats stats_;           // under mutex_
    std::chrono::steady_clock::time_point last_logged_{};
    std::thread thread_;
};

}  // namespace meshscope::server
