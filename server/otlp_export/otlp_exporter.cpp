#include "otlp_exporter.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <iostream>
#include <random>
#include <span>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "collector/collector.h"
#include "meshscope/client/http_post.h"  // one keep-alive libcurl connection
#include "otlp_body.h"
#include "thread_name.h"

namespace meshscope::server {

namespace {
using Clock = std::chrono::steady_clock;

// OTLP/HTTP's retryable answers (the specification's "Retryable Response Codes"), and no answer at all.
bool retryable(long status) {
    return status == 0 || status == 429 || status == 502 || status == 503 || status == 504;
}

// The rejected count of an OTLP partial success ({"partialSuccess": {"rejectedLogRecords": "2"}}), 0 without one.
std::int64_t rejected_records(const std::string& body) {
    const auto answer = nlohmann::json::parse(body, nullptr, false);
    if (!answer.is_object()) return 0;
    const auto partial = answer.find("partialSuccess");
    if (partial == answer.end() || !partial->is_object()) return 0;
    const auto rejected = partial->find("rejectedLogRecords");
    if (rejected == partial->end()) return 0;
    if (rejected->is_number_integer()) return rejected->get<std::int64_t>();
    if (rejected->is_string()) {
        const auto& text = rejected->get_ref<const std::string&>();
        std::int64_t value = 0;
        std::from_chars(text.data(), text.data() + text.size(), value);
        return value;
    }
    return 0;
}

std::string describe(const client::PostResult& result) {
    if (result.status == 0) return result.error;
    std::string text = "HTTP " + std::to_string(result.status);
    std::string error = result.error.substr(0, 300);
    std::replace_if(
        error.begin(), error.end(), [](unsigned char c) { return c < 0x20; }, ' ');
    if (!error.empty()) text += ": " + error;
    return text;
}
}  // namespace

std::optional<std::string> otlp_export_url_error(const std::string& url) {
    const std::string usage =
        "--otlp-export must be the http:// or https:// URL of an OpenTelemetry Collector's "
        "OTLP/HTTP endpoint, e.g. http://agent:4318, got '" +
        url + "'";
    std::string_view rest(url);
    if (rest.starts_with("http://"))
        rest.remove_prefix(7);
    else if (rest.starts_with("https://"))
        rest.remove_prefix(8);
    else
        return usage;
    const auto path_at = rest.find('/');
    std::string_view authority = rest.substr(0, path_at);
    const std::string_view path = path_at == std::string_view::npos ? std::string_view() : rest.substr(path_at);
    std::string_view host = authority, port;
    if (authority.starts_with('[')) {  // [::1]:4318
        const auto close = authority.find(']');
        if (close == std::string_view::npos) return usage;
        host = authority.substr(0, close + 1);
        const auto after = authority.substr(close + 1);
        if (!after.empty()) {
            if (!after.starts_with(':')) return usage;
            port = after.substr(1);
            if (port.empty()) return usage;
        }
    } else if (const auto colon = authority.rfind(':'); colon != std::string_view::npos) {
        host = authority.substr(0, colon);
        port = authority.substr(colon + 1);
        if (port.empty()) return usage;
    }
    const bool host_ok = !host.empty() && std::all_of(host.begin(), host.end(), [](unsigned char c) {
        return std::isalnum(c) || c == '.' || c == '-' || c == '_' || c == '[' || c == ']' || c == ':';
    });
    if (!host_ok || authority.find('@') != std::string_view::npos) return usage;
    if (!port.empty()) {
        unsigned value = 0;
        const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), value);
        if (error != std::errc() || end != port.data() + port.size() || value < 1 || value > 65535) return usage;
    }
    if (path.find_first_of("?# ") != std::string_view::npos) return usage;
    std::string_view trimmed = path;
    while (trimmed.ends_with('/')) trimmed.remove_suffix(1);
    if (trimmed.ends_with("/v1/logs") || trimmed.ends_with("/v1/metrics"))
        return "--otlp-export takes the endpoint's base URL (e.g. http://agent:4318): /v1/logs and /v1/metrics are "
               "added to it, got '" +
               url + "'";
    return std::nullopt;
}

std::optional<std::string> otlp_header_error(const std::string& line) {
    const auto colon = line.find(':');
    const std::string_view name = std::string_view(line).substr(0, colon);
    constexpr std::string_view token_marks = "!#$%&'*+-.^_`|~";
    const bool name_ok =
        colon != std::string::npos && !name.empty() && std::all_of(name.begin(), name.end(), [&](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || token_marks.find(c) != std::string_view::npos;
        });
    const bool value_ok = colon != std::string::npos &&
                          std::none_of(line.begin() + static_cast<std::ptrdiff_t>(colon), line.end(),
                                       [](char c) { return (c >= 0 && c < 0x20 && c != '\t') || c == 0x7f; });
    if (name_ok && value_ok) return std::nullopt;
    if (!name_ok)
        return "--otlp-header must be 'Name: value' with a name of letters, digits and !#$%&'*+-.^_`|~ (e.g. "
               "'Authorization: Bearer TOKEN')";
    return "--otlp-header '" + std::string(name) + ": ...' has a control character in its value";
}

OtlpExporter::OtlpExporter(Collector& collector, OtlpExportOptions options)
    : collector_(collector), options_(std::move(options)) {
    while (options_.url.ends_with('/')) options_.url.pop_back();
    listener_ = collector_.subscribe([this](const Change& change) { on_change(change); });
    metrics_source_ = collector_.add_metrics_text([this] { return metrics_text(); });
    thread_ = std::thread([this] { run(); });
}

OtlpExporter::~OtlpExporter() {
    collector_.unsubscribe(listener_);
    collector_.remove_metrics_text(metrics_source_);
    {
        const std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    abort_ = true;
    wake_.notify_all();
    thread_.join();
}

// On the monitor thread: serialize the change and queue it; never waits on the network.
void OtlpExporter::on_change(const Change& change) {
    if (change.kind != ChangeKind::finding_added && change.kind != ChangeKind::finding_updated &&
        change.kind != ChangeKind::finding_removed)
        return;
    if (!change.finding) return;
    FindingChange item{change.job, change.kind, *change.finding, Collector::now()};
    std::string key = change.job;
    key += '\0';
    key += change.finding->id;
    std::string record = otlp_log_record(item);  // outside the lock: the sender never waits for it
    {
        const std::lock_guard lock(mutex_);
        if (const auto it = index_.find(key); it != index_.end()) {
            // Not sent yet: the newer state replaces it; a finding added and then updated is still news as added.
            if (item.change == ChangeKind::finding_updated && it->second->change == ChangeKind::finding_added) {
                item.change = ChangeKind::finding_added;
                record = otlp_log_record(item);
            }
            it->second->change = item.change;
            it->second->record = std::move(record);
            it->second->version = next_version_++;
        } else if (queue_.size() >= options_.max_queued) {
            ++stats_.findings_dropped;
            return;
        } else {
            queue_.push_back({key, change.job, item.change, std::move(record), next_version_++});
            index_.emplace(std::move(key), std::prev(queue_.end()));
        }
    }
    wake_.notify_one();
}

OtlpExportStats OtlpExporter::stats() const {
    const std::lock_guard lock(mutex_);
    OtlpExportStats s = stats_;
    s.findings_queued = static_cast<std::int64_t>(queue_.size());
    return s;
}

std::string OtlpExporter::metrics_text() const {
    const OtlpExportStats s = stats();
    std::ostringstream out;
    const auto counter = [&out](std::string_view name, std::string_view help, std::int64_t value,
                                std::string_view type = "counter") {
        out << "# HELP " << name << " " << help << "\n# TYPE " << name << " " << type << "\n"
            << name << " " << value << "\n";
    };
    counter("meshscope_otlp_export_findings_sent_total", "Finding log records the OTLP endpoint accepted.",
            s.findings_sent);
    counter("meshscope_otlp_export_findings_dropped_total",
            "Finding changes not sent: the export queue was full, or they were still queued at shutdown.",
            s.findings_dropped);
    counter("meshscope_otlp_export_findings_failed_total",
            "Finding log records the OTLP endpoint refused (not retried).", s.findings_failed);
    counter("meshscope_otlp_export_findings_queued", "Finding changes waiting to be sent.", s.findings_queued, "gauge");
    counter("meshscope_otlp_export_metrics_sent_total", "Metrics exports the OTLP endpoint accepted.", s.metrics_sent);
    counter("meshscope_otlp_export_metrics_failed_total", "Metrics exports that failed (the next one replaces them).",
            s.metrics_failed);
    counter("meshscope_otlp_export_retries_total", "OTLP requests tried again after a backoff.", s.retries);
    return out.str();
}

void OtlpExporter::log_failure(const std::string& what) {
    const auto now = Clock::now();
    {
        const std::lock_guard lock(mutex_);
        if (last_logged_ != Clock::time_point{} && now - last_logged_ < std::chrono::minutes(1)) return;
        last_logged_ = now;
    }
    std::cerr << "meshscope serve: --otlp-export " << options_.url << ": " << what
              << " (counts: GET /metrics meshscope_otlp_export_*; this is logged at most once a minute)" << std::endl;
}

// long: the exporter thread: its loop under one lock (batches, backoff, the metrics timer) and the last send on
// stopping; not yet split into stages
void OtlpExporter::run() {
    net::name_this_thread("ms-otlp");
    client::HttpPost logs(options_.url + "/v1/logs", {}, {}, options_.timeout, options_.timeout, abort_);
    client::HttpPost metrics(options_.url + "/v1/metrics", {}, {}, options_.timeout, options_.timeout, abort_);
    for (const auto& header : options_.headers) {
        logs.add_header(header);
        metrics.add_header(header);
    }
    std::mt19937 random(std::random_device{}());
    auto backoff = options_.first_backoff;
    Clock::time_point not_before{};  // nothing is sent before this (a backoff, a Retry-After)
    auto next_metrics = Clock::now() + options_.interval;
    bool findings_last = false;  // the last request sent findings
    // After a failure: wait, then try again; the wait doubles up to max_backoff, times U(0.5, 1.5), or the answer's
    // Retry-After.
    const auto back_off = [&](const client::PostResult& result) {
        std::uniform_real_distribution<double> jitter(0.5, 1.5);
        auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(backoff * jitter(random));
        if (result.retry_after >= 0)
            wait = std::max(wait, std::chrono::milliseconds(static_cast<std::int64_t>(result.retry_after * 1000)));
        not_before = Clock::now() + wait;
        backoff = std::min(backoff * 2, options_.max_backoff);
    };

    std::unique_lock lock(mutex_);
    while (!stopping_) {
        const auto now = Clock::now();
        if (now >= next_metrics && now < not_before) {
            // Due while the endpoint is being waited for: this moment's counts are not sent (the next replace them).
            ++stats_.metrics_failed;
            next_metrics = now + options_.interval;
            continue;
        }
        const bool findings_due = !queue_.empty() && now >= not_before;
        const bool metrics_due = now >= next_metrics;
        if (!findings_due && !metrics_due) {
            wake_.wait_until(lock, queue_.empty() ? next_metrics : std::min(next_metrics, not_before));
            continue;
        }
        // Findings first, but a metrics export that is due goes between two batches: a stream of findings never
        // holds the gauges back for longer than one request.
        if (findings_due && !(metrics_due && findings_last)) {
            findings_last = true;
            // A batch from the queue's front; its entries stay queued (a newer change replaces one's text) until
            // the endpoint answers.
            std::vector<std::pair<std::string, std::uint64_t>> batch;
            std::vector<std::string> texts, jobs;
            std::size_t bytes = 0;
            for (const auto& p : queue_) {
                if (batch.size() >= options_.max_batch || (bytes > 0 && bytes + p.record.size() > (1u << 20))) break;
                batch.emplace_back(p.key, p.version);
                texts.push_back(p.record);
                jobs.push_back(p.job);
                bytes += p.record.size();
            }
            lock.unlock();
            std::vector<JobRecord> records;
            for (std::size_t i = 0; i < texts.size(); ++i) records.push_back({jobs[i], texts[i]});
            const auto result = logs.post(otlp_logs_body(records));
            const bool retry = retryable(result.status);
            std::string failure;
            if (retry)
                failure = "cannot send " + std::to_string(batch.size()) + " finding records (" + describe(result) +
                          "); trying again";
            else if (result.status < 200 || result.status >= 300)
                failure = "the endpoint refused " + std::to_string(batch.size()) + " finding records (" +
                          describe(result) + ")";
            const std::int64_t rejected = failure.empty() ? rejected_records(result.body) : 0;
            if (rejected > 0)
                failure = "the endpoint rejected " + std::to_string(rejected) + " of " + std::to_string(batch.size()) +
                          " finding records: " + result.body.substr(0, 300);
            lock.lock();
            if (retry) {
                ++stats_.retries;
                back_off(result);
            } else {
                backoff = options_.first_backoff;
                const auto sent = static_cast<std::int64_t>(batch.size());
                if (failure.empty() || rejected > 0) {
                    stats_.findings_sent += sent - std::min(rejected, sent);
                    stats_.findings_failed += std::min(rejected, sent);
                } else {
                    stats_.findings_failed += sent;
                }
                for (const auto& [key, version] : batch)
                    if (const auto it = index_.find(key); it != index_.end() && it->second->version == version) {
                        queue_.erase(it->second);
                        index_.erase(it);
                    }
            }
            if (!failure.empty()) {
                lock.unlock();
                log_failure(failure);
                lock.lock();
            }
            continue;
        }
        // Metrics: the counts of this moment (one trip to the monitor thread, as a GET /metrics scrape).
        findings_last = false;
        lock.unlock();
        next_metrics = Clock::now() + options_.interval;
        auto [jobs, communicator_json] = collector_.call([](const Monitor& m) {
            auto summaries = m.jobs();
            std::vector<std::pair<std::string, nlohmann::json>> comms;
            for (const JobSummary& job : summaries)
                if (auto json = m.communicators_json(job.job)) comms.emplace_back(job.job, std::move(*json));
            return std::make_pair(std::move(summaries), std::move(comms));
        });
        const double at = Collector::now();
        // Each job's communicators as GET /metrics writes them (the same cap), read off the monitor thread.
        std::vector<JobCommunicators> communicators(jobs.size());
        for (std::size_t j = 0, c = 0; j < jobs.size(); ++j)
            if (c < communicator_json.size() && communicator_json[c].first == jobs[j].job)
                communicators[j] = communicator_series(jobs[j].job, communicator_json[c++].second);
        client::PostResult result;
        bool ok = true;
        // At most max_metrics_jobs jobs a request (each ~5 KB) and their max_metrics_communicators communicators (each
        // ~2.3 KB), so that a collector of 1,024 jobs sends 16 requests of a few hundred KB, not one of 5 MB, and a job
        // at the cap of 256 communicators (~600 KB) shares a request with at most three more such.
        for (std::size_t first = 0; first < jobs.size() && ok;) {
            std::size_t count = 0, series = 0;
            while (first + count < jobs.size() && count < options_.max_metrics_jobs &&
                   (count == 0 ||
                    series + communicators[first + count].series.size() <= options_.max_metrics_communicators))
                series += communicators[first + count++].series.size();
            result = metrics.post(otlp_metrics_body(std::span(jobs).subspan(first, count), at,
                                                    std::span(communicators).subspan(first, count)));
            ok = result.status >= 200 && result.status < 300;
            first += count;
        }
        lock.lock();
        if (jobs.empty()) continue;
        if (ok) {
            ++stats_.metrics_sent;
            backoff = options_.first_backoff;
            continue;
        }
        ++stats_.metrics_failed;
        if (retryable(result.status)) back_off(result);
        lock.unlock();
        log_failure("cannot send the metrics (" + describe(result) + "); the next export replaces them");
        lock.lock();
    }

    // Stopping: the first batch still queued is sent once more, within 2 s, without retries; the rest is dropped.
    if (queue_.empty()) return;
    std::vector<std::string> texts, jobs;
    for (const auto& p : queue_) {
        if (texts.size() >= options_.max_batch) break;
        texts.push_back(p.record);
        jobs.push_back(p.job);
    }
    const auto count = static_cast<std::int64_t>(texts.size());
    stats_.findings_dropped += static_cast<std::int64_t>(queue_.size()) - count;
    queue_.clear();
    index_.clear();
    lock.unlock();
    std::vector<JobRecord> records;
    for (std::size_t i = 0; i < texts.size(); ++i) records.push_back({jobs[i], texts[i]});
    const std::atomic<bool> never{false};
    const auto last_wait = std::min(options_.timeout, std::chrono::milliseconds(2000));
    client::HttpPost last(options_.url + "/v1/logs", {}, {}, last_wait, last_wait, never);
    for (const auto& header : options_.headers) last.add_header(header);
    const auto result = last.post(otlp_logs_body(records));
    lock.lock();
    if (result.status >= 200 && result.status < 300)
        stats_.findings_sent += count;
    else
        stats_.findings_dropped += count;
}

}  // namespace meshscope::server
