// Monitor: the public API, the change feed and the queries. Ingest and tick are in monitor/monitor_*.cpp.
#include "meshscope/monitor/monitor.h"

#include <algorithm>
#include <limits>

#include "monitor/monitor_impl.h"

namespace meshscope {

namespace {
nlohmann::json topology_json(const ReportedTopology& t) {
    return {{"dp", t.dp}, {"cp", t.cp}, {"ep", t.ep}};
}

RankStateKind state_of(const monitor::RankRecord& r) noexcept {
    if (r.failed) return RankStateKind::failed;
    if (r.exited) return RankStateKind::exited;
    if (r.stale) return RankStateKind::stale;
    if (r.ready) return RankStateKind::ready;
    return RankStateKind::initializing;
}

bool finding_order(const Finding& a, const Finding& b) {
    if (a.kind != b.kind) return a.kind < b.kind;
    const std::int64_t ra = a.ranks.empty() ? -1 : a.ranks.front();
    const std::int64_t rb = b.ranks.empty() ? -1 : b.ranks.front();
    if (ra != rb) return ra < rb;
    return a.id < b.id;
}

JobSummary summarize(const monitor::Job& job) {
    JobSummary s;
    s.job = job.name;
    s.world_size = job.reference_world;
    s.ranks_seen = static_cast<std::int64_t>(job.records.size());
    s.states = job.state_counts;
    // Ranks beyond the world are rare (a rank reporting a larger world_size); count only those below it.
    std::int64_t seen_in_world = s.ranks_seen;
    if (job.slots.highest() >= job.reference_world)
        for (const auto& rec : job.records)
            if (rec.state.rank >= job.reference_world) --seen_in_world;
    // Never seen, or seen only in imported records (no hook event says its state).
    s.states[static_cast<std::size_t>(RankStateKind::pending)] =
        std::clamp<std::int64_t>(s.world_size - seen_in_world + job.records_only_ranks, 0, s.world_size);
    s.ranks_ready = s.states[static_cast<std::size_t>(RankStateKind::ready)];
    s.findings = static_cast<std::int64_t>(job.findings.size());
    for (const auto& [id, f] : job.findings) ++s.findings_by_kind[static_cast<std::size_t>(f.kind)];
    s.events = job.events;
    s.first_event = job.first_event;
    s.last_event = job.last_event;
    s.first_ts = job.first_ts;
    s.last_ts = job.last_ts;
    s.plan_declared = job.plan.has_value();
    s.topology = job.reference_topology;
    s.hang = job.hang;
    return s;
}

// Finding kinds per rank, for colouring ranks by finding.
// The finding kinds naming each rank of [begin, begin + count).
std::vector<std::uint16_t> finding_masks(const monitor::Job& job, std::size_t begin, std::size_t count) {
    std::vector<std::uint16_t> masks(count, 0);
    for (const auto& [id, f] : job.findings) {
        // f.ranks is sorted: only the part inside the page is walked.
        auto r = std::lower_bound(f.ranks.begin(), f.ranks.end(), static_cast<std::int64_t>(begin));
        for (; r != f.ranks.end() && static_cast<std::size_t>(*r) < begin + count; ++r)
            masks[static_cast<std::size_t>(*r) - begin] |=
                static_cast<std::uint16_t>(1u << static_cast<unsigned>(f.kind));
    }
    return masks;
}

std::size_t row_count(const monitor::Job& j) {
    return static_cast<std::size_t>(std::max(j.reference_world, j.slots.highest() + 1));
}

void apply_mask(RankState& state, std::uint16_t mask) {
    state.findings.clear();
    for (const FindingKind k : all_finding_kinds)
        if (mask & (1u << static_cast<unsigned>(k))) state.findings.push_back(k);
}
}  // namespace

std::string_view to_string(ChangeKind kind) noexcept {
    switch (kind) {
        case ChangeKind::job_added: return "job_added";
        case ChangeKind::rank_changed: return "rank_changed";
        case ChangeKind::finding_added: return "finding_added";
        case ChangeKind::finding_updated: return "finding_updated";
        case ChangeKind::finding_removed: return "finding_removed";
    }
    return "rank_changed";
}

std::optional<ChangeKind> parse_change_kind(std::string_view text) noexcept {
    for (std::size_t i = 0; i < change_kind_count; ++i)
        if (to_string(static_cast<ChangeKind>(i)) == text) return static_cast<ChangeKind>(i);
    return std::nullopt;
}

nlohmann::json to_json(const JobSummary& s) {
    nlohmann::json j = {{"job", s.job},
                        {"world_size", s.world_size},
                        {"ranks_seen", s.ranks_seen},
                        {"ranks_ready", s.ranks_ready},
                        {"findings", s.findings},
                        {"events", s.events},
                        {"plan_declared", s.plan_declared}};
    auto states = nlohmann::json::object();
    for (std::size_t i = 0; i < rank_state_kind_count; ++i)
        states[std::string(to_string(static_cast<RankStateKind>(i)))] = s.states[i];
    j["states"] = std::move(states);
    auto kinds = nlohmann::json::object();
    for (const FindingKind k : all_finding_kinds)
        kinds[std::string(to_string(k))] = s.findings_by_kind[static_cast<std::size_t>(k)];
    j["findings_by_kind"] = std::move(kinds);
    if (s.first_event) j["first_event"] = *s.first_event;
    if (s.last_event) j["last_event"] = *s.last_event;
    if (s.first_ts) j["first_ts"] = *s.first_ts;
    if (s.last_ts) j["last_ts"] = *s.last_ts;
    if (s.topology) j["topology"] = topology_json(*s.topology);
    if (s.hang) j["hang"] = to_json(*s.hang);
    return j;
}

nlohmann::json to_json(const Change& c) {
    nlohmann::json j = {{"type", to_string(c.kind)}, {"job", c.job}};
    switch (c.kind) {
        case ChangeKind::job_added: break;
        case ChangeKind::rank_changed:
            j["rank"] = c.rank;
            j["state"] = to_string(c.state);
            if (c.phase) j["phase"] = to_string(*c.phase);
            break;
        case ChangeKind::finding_added:
        case ChangeKind::finding_updated:
            if (c.finding) j["finding"] = to_json(*c.finding);
            break;
        case ChangeKind::finding_removed:
            if (c.finding) {
                j["id"] = c.finding->id;
                j["kind"] = to_string(c.finding->kind);
            }
            break;
    }
    return j;
}

// --- Impl: change feed and shared steps ---------------------------------------------------------------

void Monitor::Impl::emit(Change change) {
    if (listener) listener(change);
    if (options.record_changes) changes.push_back(std::move(change));
}

void Monitor::Impl::put_finding(monitor::Job& job, Finding finding) {
    const auto it = job.findings.find(finding.id);
    if (it != job.findings.end() && it->second == finding) return;
    const bool added = it == job.findings.end();
    Change change;
    change.kind = added ? ChangeKind::finding_added : ChangeKind::finding_updated;
    change.job = job.name;
    if (listener || options.record_changes) change.finding = finding;
    if (added)
        job.findings.emplace(finding.id, std::move(finding));
    else
        it->second = std::move(finding);
    emit(std::move(change));
}

void Monitor::Impl::drop_finding(monitor::Job& job, const std::string& id) {
    const auto it = job.findings.find(id);
    if (it == job.findings.end()) return;
    Change change;
    change.kind = ChangeKind::finding_removed;
    change.job = job.name;
    change.finding.emplace();
    change.finding->id = it->second.id;
    change.finding->kind = it->second.kind;
    job.findings.erase(it);
    emit(std::move(change));
}

void Monitor::Impl::update_state(monitor::Job& job, monitor::RankRecord& record, std::optional<Phase> previous_phase) {
    const RankStateKind before = record.state.state;
    const RankStateKind after = state_of(record);
    if (record.records_only && after != RankStateKind::pending) {  // the hook reports it now
        record.records_only = false;
        --job.records_only_ranks;
    }
    if (before == after && previous_phase == record.state.phase) return;
    if (before != after) {
        if (before != RankStateKind::pending) --job.state_counts[static_cast<std::size_t>(before)];
        ++job.state_counts[static_cast<std::size_t>(after)];
        record.state.state = after;
    }
    if (!listener && !options.record_changes) return;
    Change change;
    change.kind = ChangeKind::rank_changed;
    change.job = job.name;
    change.rank = record.state.rank;
    change.state = after;
    change.phase = record.state.phase;
    emit(std::move(change));
}

// --- public API -----------------------------------------------------------------------------------

Monitor::Monitor(Options options) : impl_(std::make_unique<Impl>()) {
    impl_->options = options;
}
Monitor::~Monitor() = default;
Monitor::Monitor(Monitor&&) noexcept = default;
Monitor& Monitor::operator=(Monitor&&) noexcept = default;

const MonitorOptions& Monitor::options() const noexcept {
    return impl_->options;
}

void Monitor::ingest(const Event& event, double received_at) {
    monitor::Job& job = impl_->job_for(event.job);
    impl_->ingest_one(job, event, received_at);
    impl_->flush(job);
}

void Monitor::ingest(std::span<const Event> events, double received_at) {
    // Flush each job once per batch; a job's dirty work stays in the job until its flush.
    std::vector<monitor::Job*> touched;
    for (const Event& event : events) {
        monitor::Job& job = impl_->job_for(event.job);
        if (std::find(touched.begin(), touched.end(), &job) == touched.end()) touched.push_back(&job);
        impl_->ingest_one(job, event, received_at);
    }
    for (monitor::Job* job : touched) impl_->flush(*job);
}

void Monitor::tick(double now) {
    for (auto& [name, job] : impl_->jobs) impl_->tick_job(*job, now);
}

void Monitor::set_change_listener(ChangeListener listener) {
    impl_->listener = std::move(listener);
}

std::vector<Change> Monitor::take_changes() {
    return std::exchange(impl_->changes, {});
}

std::vector<std::string> Monitor::job_names() const {
    std::vector<std::string> names;
    names.reserve(impl_->jobs.size());
    for (const auto& [name, job] : impl_->jobs) names.push_back(name);
    std::sort(names.begin(), names.end());
    return names;
}

std::vector<JobSummary> Monitor::jobs() const {
    std::vector<JobSummary> out;
    for (const auto& name : job_names()) out.push_back(summarize(*impl_->jobs.find(name)->second));
    return out;
}

std::optional<JobSummary> Monitor::job(std::string_view job) const {
    const auto it = impl_->jobs.find(job);
    if (it == impl_->jobs.end()) return std::nullopt;
    return summarize(*it->second);
}

std::vector<RankState> Monitor::ranks(std::string_view job) const {
    return ranks(job, 0, std::numeric_limits<std::size_t>::max());
}

std::optional<std::size_t> Monitor::rank_count(std::string_view job) const {
    const auto it = impl_->jobs.find(job);
    if (it == impl_->jobs.end()) return std::nullopt;
    return row_count(*it->second);
}

std::vector<RankState> Monitor::ranks(std::string_view job, std::size_t offset, std::size_t limit) const {
    const auto it = impl_->jobs.find(job);
    if (it == impl_->jobs.end()) return {};
    const monitor::Job& j = *it->second;
    const auto total = row_count(j);
    const auto begin = std::min(offset, total);
    const auto count = std::min(limit, total - begin);
    const auto masks = finding_masks(j, begin, count);
    std::vector<RankState> out(count);
    for (std::size_t i = 0; i < count; ++i) {
        const auto r = static_cast<std::int64_t>(begin + i);
        if (const monitor::RankRecord* record = j.find(r)) out[i] = record->state;
        out[i].rank = r;
        apply_mask(out[i], masks[i]);
    }
    return out;
}

std::optional<RankState> Monitor::rank(std::string_view job, std::int64_t rank) const {
    const auto it = impl_->jobs.find(job);
    if (it == impl_->jobs.end() || rank < 0) return std::nullopt;
    const monitor::Job& j = *it->second;
    RankState state;
    state.rank = rank;
    if (const monitor::RankRecord* record = j.find(rank)) {
        state = record->state;
        for (const auto& [dim, report] : record->groups)
            state.groups[j.dim_names[static_cast<std::size_t>(dim)]] = report.members();
    } else if (rank >= j.reference_world) {
        return std::nullopt;
    }
    std::uint16_t mask = 0;
    for (const auto& [id, f] : j.findings)
        if (std::binary_search(f.ranks.begin(), f.ranks.end(), rank))
            mask |= static_cast<std::uint16_t>(1u << static_cast<unsigned>(f.kind));
    apply_mask(state, mask);
    return state;
}

std::vector<Finding> Monitor::findings(std::string_view job) const {
    const auto it = impl_->jobs.find(job);
    if (it == impl_->jobs.end()) return {};
    std::vector<Finding> out;
    out.reserve(it->second->findings.size());
    for (const auto& [id, f] : it->second->findings) out.push_back(f);
    std::sort(out.begin(), out.end(), finding_order);
    return out;
}

std::int64_t Monitor::events_ingested() const noexcept {
    return impl_->events;
}

nlohmann::json Monitor::jobs_json() const {
    auto list = nlohmann::json::array();
    for (const auto& s : jobs()) list.push_back(to_json(s));
    return {{"jobs", std::move(list)}};
}

std::optional<nlohmann::json> Monitor::job_json(std::string_view job) const {
    const auto s = this->job(job);
    if (!s) return std::nullopt;
    return to_json(*s);
}

std::optional<nlohmann::json> Monitor::ranks_json(std::string_view job) const {
    if (impl_->jobs.find(job) == impl_->jobs.end()) return std::nullopt;
    auto list = nlohmann::json::array();
    for (const auto& r : ranks(job)) list.push_back(to_json(r));
    return nlohmann::json{{"ranks", std::move(list)}};
}

std::optional<nlohmann::json> Monitor::findings_json(std::string_view job) const {
    if (impl_->jobs.find(job) == impl_->jobs.end()) return std::nullopt;
    auto list = nlohmann::json::array();
    for (const auto& f : findings(job)) list.push_back(to_json(f));
    return nlohmann::json{{"findings", std::move(list)}};
}

bool Monitor::remove_job(std::string_view job) {
    const auto it = impl_->jobs.find(job);
    if (it == impl_->jobs.end()) return false;
    if (impl_->last_job == it->second.get()) impl_->last_job = nullptr;
    impl_->jobs.erase(it);
    return true;
}

}  // namespace meshscope
