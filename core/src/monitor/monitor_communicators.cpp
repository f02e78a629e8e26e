// slow_group and communicator_not_formed: judged from what meshscope-probe's ranks reported about their
// communicators (live/communicator_book.h), once per ingest call that brought such reports.
#include <algorithm>
#include <cstdio>

#include "meshscope/monitor/finding_text.h"
#include "monitor/monitor_impl.h"

namespace meshscope {

namespace {
std::string bandwidth_text(double gbps) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, gbps >= 10 ? "%.1f GB/s" : "%.2f GB/s", gbps);
    return buffer;
}

// 1024 -> "1 KiB", 268435456 -> "256 MiB" (the probe's sizes are powers of two).
std::string bytes_text(std::int64_t bytes) {
    static constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    std::size_t unit = 0;
    double value = static_cast<double>(bytes);
    while (value >= 1024 && unit + 1 < std::size(units)) {
        value /= 1024;
        ++unit;
    }
    char buffer[32];
    std::snprintf(buffer, sizeof buffer,
                  value == static_cast<double>(static_cast<std::int64_t>(value)) ? "%.0f %s" : "%.1f %s", value,
                  units[unit]);
    return buffer;
}

std::string group_name(const monitor::GroupMeasure& group) {
    return group.dim + " group " + std::to_string(group.index) + " " + Group::from(group.members).text();
}
}  // namespace

namespace monitor {
monitor::SlowGroupOptions slow_group_options(const MonitorOptions& options) {
    monitor::SlowGroupOptions o;
    o.mads = options.slow_group_mads;
    o.floor_ratio = options.slow_group_floor_ratio;
    o.min_groups = options.slow_group_min_groups;
    return o;
}

Finding slow_group(const SlowGroup& slow) {
    Finding f;
    f.kind = FindingKind::slow_group;
    f.id = "slow_group/" + slow.group->dim + "/" + std::to_string(slow.group->index);
    f.ranks = slow.group->members;
    std::sort(f.ranks.begin(), f.ranks.end());
    f.message = group_name(*slow.group) + " reaches " + bandwidth_text(slow.busbw) + " bus bandwidth in " +
                slow.collective + " of " + bytes_text(slow.bytes) + "; the median of the " +
                std::to_string(slow.peers) + " " + slow.group->dim + " groups is " + bandwidth_text(slow.median);
    f.fix =
        "Check the links between these ranks (NCCL_DEBUG=INFO, NIC and NVLink errors, PCIe placement, "
        "CPU contention); every step's " +
        slow.collective + " on this group waits for its slowest link.";
    return f;
}

Finding communicator_not_formed(const GroupMeasure& group) {
    Finding f;
    f.kind = FindingKind::communicator_not_formed;
    f.id = "communicator_not_formed/" + group.dim + "/" + std::to_string(group.index);
    const auto missing = group.missing();
    f.ranks = missing.empty() ? group.members : missing;
    std::sort(f.ranks.begin(), f.ranks.end());
    f.message = "the " + group_name(group) + " communicator never formed: ";
    if (!missing.empty()) {
        f.message += ranks_text(missing) + " never joined";
    } else {
        std::string why = "no member says why";
        for (const auto& [rank, report] : group.reports)
            if (report.state == CommunicatorState::not_formed && report.error) {
                why = report.error->substr(0, report.error->find('\n')).substr(0, 200);
                break;
            }
        f.message += why;
    }
    f.fix = "Start every rank with the same plan (dp, cp, ep and creation order) and check that " +
            ranks_text(f.ranks) +
            (f.ranks.size() == 1 ? " is running and can reach its peers" : " are running and can reach their peers") +
            "; a communicator waits for every member and NCCL would hang here.";
    return f;
}
}  // namespace monitor

void Monitor::Impl::refresh_communicator_findings(monitor::Job& job) {
    monitor::CommunicatorBook& book = job.communicators;
    book.dirty = false;
    std::vector<Finding> now;
    for (const auto& slow : monitor::slow_groups(book, monitor::slow_group_options(options)))
        now.push_back(monitor::slow_group(slow));
    for (const auto& [key, group] : book.groups)
        if (!group.formed()) now.push_back(monitor::communicator_not_formed(group));
    std::vector<std::string> ids;
    for (auto& f : now) {
        ids.push_back(f.id);
        put_finding(job, std::move(f));
    }
    for (const auto& id : book.flagged)
        if (std::find(ids.begin(), ids.end(), id) == ids.end()) drop_finding(job, id);
    book.flagged = std::move(ids);
}

std::optional<nlohmann::json> Monitor::communicators_json(std::string_view job) const {
    const auto it = impl_->jobs.find(job);
    if (it == impl_->jobs.end()) return std::nullopt;
    nlohmann::json out =
        monitor::communicators_json(it->second->communicators, monitor::slow_group_options(impl_->options));
    // The communicators the job's last import of records shows (records_import.h), as the document gave them.
    nlohmann::json records = nlohmann::json::array();
    for (const RecordsCommunicator& c : it->second->records_communicators) {
        nlohmann::json o = {{"name", c.name}, {"nranks", c.nranks}, {"seen", c.seen}, {"state", c.state}};
        if (c.comm_id) o["comm_id"] = *c.comm_id;
        if (!c.source.empty()) o["source"] = c.source;
        if (!c.dim.empty()) o["dim"] = c.dim;
        if (c.index >= 0) o["index"] = c.index;
        records.push_back(std::move(o));
    }
    out["records"] = std::move(records);
    return out;
}

}  // namespace meshscope
