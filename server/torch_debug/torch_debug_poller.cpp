#include "torch_debug_poller.h"

#include <algorithm>
#include <map>

#include "meshscope/monitor/event.h"
#include "meshscope/records/diagnose.h"
#include "meshscope/records/flight_recorder.h"
#include "torch_debug_client.h"

namespace meshscope::server {

namespace {
constexpr std::string_view fr_suffix = " (Flight Recorder)";

// "http://node0:41213/handler/..." -> "node0" ("[::1]" -> "::1"); empty when it is no such URL.
std::string worker_host(const std::string& url) {
    const auto scheme = url.find("://");
    if (scheme == std::string::npos) return {};
    std::string rest = url.substr(scheme + 3);
    rest = rest.substr(0, rest.find('/'));
    if (rest.starts_with('[')) return rest.substr(1, rest.find(']') == std::string::npos ? 0 : rest.find(']') - 1);
    return rest.substr(0, rest.rfind(':'));
}

Finding rank_unread_finding(std::int64_t rank, const std::string& where, const std::string& why) {
    Finding f;
    f.kind = FindingKind::peer_unreachable;
    f.ranks = {rank};
    f.message = "rank " + std::to_string(rank) + "'s Flight Recorder did not reach torch's debug server at " + where +
                ": " + why;
    f.fix = "Check rank " + std::to_string(rank) +
            "'s process and host (is it alive? did it call start_debug_server?): the front end on rank 0 could "
            "not read its worker server, so the diagnosis goes without its records.";
    f.sources = {where};
    return f;
}
}  // namespace

std::optional<std::string> split_torch_debug_address(const std::string& text, std::string& host, std::string& port) {
    const bool bare = text.starts_with('[') ? text.ends_with(']') : text.find(':') == std::string::npos;
    return ras::split_address(bare ? text + ":25999" : text, host, port);
}

std::string default_torch_debug_job(const std::string& address) {
    return job_name_from("torch@" + address);
}

Finding torch_debug_unreadable_finding(const std::string& where, const std::string& reason) {
    Finding f;
    f.kind = FindingKind::peer_unreachable;
    f.message = "the collector cannot read torch's debug server at " + where + ": " + reason;
    f.fix =
        "check that the job is running and called torch.distributed.debug.start_debug_server(port=...) on every "
        "rank (its front end runs on rank 0 and needs jinja2, tabulate and requests or aiohttp), and that "
        "--torch-debug names rank 0's host and that port as seen from the collector";
    f.sources = {where};
    return f;
}

TorchDebugPoller::TorchDebugPoller(Collector& collector, TorchDebugPollerOptions options)
    : options_(std::move(options)) {
    (void)split_torch_debug_address(options_.address, host_, port_);
    where_ = host_ + ":" + port_;
    path_ = "/fr_trace_json?backend=" + options_.backend;
    RecordsPollerOptions poll;
    poll.job = options_.job;
    poll.thread_name = "ms-torch-debug";
    poll.source = "torch's debug server";
    poll.where = where_;
    poll.diagnosis = "the Flight Recorder diagnosis";
    poll.interval = options_.interval;
    if (options_.plan) poll.world = options_.plan->topology().world();
    poller_ = std::make_unique<RecordsPoller>(
        collector, std::move(poll), [this](bool, const ras::RasStop& stop) { return read(stop); },
        [where = where_](const std::string& reason) { return torch_debug_unreadable_finding(where, reason); });
}

TorchDebugPoller::~TorchDebugPoller() {
    poller_.reset();
}

RecordsImport TorchDebugPoller::read(const ras::RasStop& stop) {
    const std::string what = "GET " + path_;
    const std::string body = torch_debug::http_get(host_, port_, path_, options_.timeout, options_.max_reply, &stop);
    const auto page = torch_debug::read_page(body, where_, what);

    records::RecordSet set;
    records::FrShared shared;
    std::vector<Finding> unread;
    std::map<std::int64_t, std::string> hosts;
    std::vector<std::vector<std::int64_t>> progress;
    std::int64_t highest = -1;
    for (const auto& rank : page) {
        highest = std::max(highest, rank.rank);
        if (auto host = worker_host(rank.worker); !host.empty()) hosts[rank.rank] = std::move(host);
        if (rank.status != 200) {
            std::string text = rank.text;
            while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
            unread.push_back(rank_unread_finding(
                rank.rank, where_,
                "status " + std::to_string(rank.status) + ": " + records::printable(text.substr(0, 300))));
            continue;
        }
        auto dump = records::read_fr_dump(rank.text, where_ + " rank " + std::to_string(rank.rank), &shared);
        if (!dump) {
            unread.push_back(rank_unread_finding(
                rank.rank, where_,
                "its Flight Recorder JSON cannot be read: " + records::printable(dump.error().message())));
            continue;
        }
        records::FrDump read = std::move(dump).value();
        read.rank = rank.rank;
        // Its worker's host, so that the diagnosis's fixes name where to look.
        if (const auto it = hosts.find(rank.rank); it != hosts.end()) read.host = it->second;
        const auto& entries = read.entries;
        progress.push_back({rank.rank, static_cast<std::int64_t>(entries.size()),
                            entries.empty() ? -1 : entries.back().collective_seq_id,
                            entries.empty() ? -1 : entries.back().time_created_ns});
        set.dumps.push_back(std::move(read));
    }

    RecordsImport records;
    if (!set.dumps.empty()) {
        const auto diagnosis = records::diagnose(set, options_.plan ? &*options_.plan : nullptr);
        records = records::to_records_import(diagnosis);
    }
    // The stall rule: findings of progress only when no rank's Flight Recorder moved since the previous read.
    const bool stalled = last_progress_ && *last_progress_ == progress;
    last_progress_ = progress;
    std::vector<Finding> findings;
    for (auto& f : records.findings) {
        if (f.kind == FindingKind::collective_stuck || f.kind == FindingKind::communicator_not_formed ||
            f.kind == FindingKind::verdict) {
            if (!stalled) continue;
            const std::string clause = "; no rank recorded anything since the previous read";
            if (f.message.ends_with(fr_suffix))
                f.message.insert(f.message.size() - fr_suffix.size(), clause);
            else
                f.message += clause;
        }
        findings.push_back(std::move(f));
    }
    findings.insert(findings.end(), unread.begin(), unread.end());
    records.findings = std::move(findings);
    // Every rank of the page joins the job, with the host its worker server runs on.
    for (const auto& rank : page)
        if (std::none_of(records.ranks.begin(), records.ranks.end(),
                         [&](const RecordsRank& r) { return r.rank == rank.rank; }))
            records.ranks.push_back({rank.rank, std::nullopt, std::nullopt, std::nullopt});
    std::sort(records.ranks.begin(), records.ranks.end(),
              [](const RecordsRank& a, const RecordsRank& b) { return a.rank < b.rank; });
    for (auto& r : records.ranks)
        if (!r.host)
            if (const auto it = hosts.find(r.rank); it != hosts.end()) r.host = it->second;
    // The page has a section per rank of the job: its world when the plan or the records establish none.
    if (records.world_size == 0) records.world_size = highest + 1;
    return records;
}

}  // namespace meshscope::server
