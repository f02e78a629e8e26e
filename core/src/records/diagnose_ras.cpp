// NCCL RAS status -> communicators: dead or unresponsive peers, ranks still in init, ranks behind in collectives.
#include <algorithm>
#include <map>
#include <numeric>
#include <optional>

#include "records/diagnose_internal.h"

namespace meshscope::records::detail {

namespace {
// "rank 7", "2 unnamed ranks", "rank 7 and 2 unnamed ranks"
std::string who(const std::vector<std::int64_t>& named, std::int64_t unnamed) {
    std::string out = named.empty() ? "" : ranks_words(named);
    if (unnamed > 0)
        out += (out.empty() ? "" : " and ") + std::to_string(unnamed) + " unnamed rank" + (unnamed == 1 ? "" : "s");
    return out;
}

// A rank of a communicator blocked in its collective number `count` (or its init), waiting on `waits_on`.
void note_blocked(Context& context, std::int64_t rank, const ObservedGroup& group, const std::string& hash,
                  std::int64_t count, const std::string& op, std::vector<std::int64_t> waits_on,
                  const std::string& file) {
    std::erase(waits_on, rank);
    if (waits_on.empty()) return;
    std::sort(waits_on.begin(), waits_on.end());
    waits_on.erase(std::unique(waits_on.begin(), waits_on.end()), waits_on.end());
    Position p = blocked_in(group, rank, "NCCL RAS", hash);
    p.seq = count;
    p.op = op;
    p.waits_on = std::move(waits_on);
    p.files = {file};
    context.positions.push_back(std::move(p));
}

// Polled by `serve --ras` (Context::ras_stalls): whether c's ranks behind are a finding, and the words that say
// it stalled. Read alone, a status's ranks behind always are, in their plain words.
std::optional<std::string> behind_words(const Context& context, const RasCommunicator& c) {
    if (!context.ras_stalls) return std::string();
    for (const auto& s : *context.ras_stalls)
        if (s.hash == c.hash) return std::string(", and no count changed since the previous poll");
    return std::nullopt;
}

// The text form's communicator, placed: its named ranks' global ranks from the plan's group where the NCCL log or
// the world communicator did not give them, the ranks still in init (a communicator whose highest status is INIT
// has every rank that answered in init), and the ranks behind in the first operation whose counts differ.
template <class RankOf>
void text_findings(Context& context, const RasStatus& status, const RasCommunicator& c, const ObservedGroup& group,
                   std::vector<std::int64_t>& in_init, const RankOf& rank_of) {
    const auto global = [&](std::int64_t comm_rank, const std::string& host,
                            std::int64_t pid) -> std::optional<std::int64_t> {
        if (const auto g = rank_of(host, pid)) return g;
        if (group.place && comm_rank >= 0 && comm_rank < static_cast<std::int64_t>(group.place->members.size()))
            return group.place->members[static_cast<std::size_t>(comm_rank)];
        return std::nullopt;
    };
    if (c.status == "INIT" && group.place) {
        std::vector<std::int64_t> absent;
        for (const auto& m : c.missing_ranks)
            if (m.rank >= 0 && m.rank < static_cast<std::int64_t>(group.place->members.size()))
                absent.push_back(group.place->members[static_cast<std::size_t>(m.rank)]);
        for (const auto r : group.place->members)
            if (std::find(absent.begin(), absent.end(), r) == absent.end()) in_init.push_back(r);
    }
    for (const auto& r : c.ranks)
        if (r.init_state == 7)
            if (const auto g = global(r.rank, r.host, r.pid))
                if (std::find(in_init.begin(), in_init.end(), *g) == in_init.end()) in_init.push_back(*g);
    const auto stalled = behind_words(context, c);
    if (c.mismatched_ops.empty() || !stalled) return;
    const std::string& op = c.mismatched_ops.front();
    std::map<std::uint64_t, std::pair<std::vector<std::int64_t>, std::int64_t>> by_count;  // named, unnamed
    for (const auto& r : c.ranks) {
        const auto it = r.collective_counts.find(op);
        if (it == r.collective_counts.end()) continue;
        if (const auto g = global(r.rank, r.host, r.pid))
            by_count[it->second].first.push_back(*g);
        else
            ++by_count[it->second].second;
    }
    for (const auto& u : c.unnamed)
        if (u.op == op) by_count[u.count].second += u.ranks;
    if (by_count.size() < 2) return;
    // Every named rank waits in its collective number `count` on the named ranks that launched fewer.
    std::vector<std::int64_t> lower;
    for (const auto& [count, ranks] : by_count) {
        for (const std::int64_t r : ranks.first)
            note_blocked(context, r, group, c.hash, static_cast<std::int64_t>(count), op, lower, status.file);
        lower.insert(lower.end(), ranks.first.begin(), ranks.first.end());
    }
    auto& [low, low_ranks] = *by_count.begin();
    auto& [high, high_ranks] = *by_count.rbegin();
    std::sort(low_ranks.first.begin(), low_ranks.first.end());
    std::sort(high_ranks.first.begin(), high_ranks.first.end());
    const std::string behind = who(low_ranks.first, low_ranks.second);
    const bool one = low_ranks.first.size() + static_cast<std::size_t>(low_ranks.second) == 1;
    const std::string id_part = group.place ? group.place->dim + "/" + std::to_string(group.place->index) : c.hash;
    Finding f;
    f.kind = FindingKind::collective_stuck;
    f.id = "collective_stuck/" + id_part;
    f.ranks = low_ranks.first;
    // NCCL 2.24 and 2.25 count all collectives together ("different collective operation counts").
    const std::string what = op == "collective" ? "collectives" : op;
    f.message = "the " + group.label() + " communicator: " + behind + " launched " + std::to_string(low) + " " + what +
                ", " + who(high_ranks.first, high_ranks.second) + " launched " + std::to_string(high) + "; " + behind +
                (one ? " is" : " are") + " behind" + *stalled + " (NCCL RAS)";
    f.fix = "Look at what " + behind + (one ? " is" : " are") +
            " doing instead (py-spy dump --pid, its log, Flight Recorder): every member of the group waits for the "
            "ranks that are behind.";
    context.out.findings.push_back({std::move(f), {status.file}});
}

// --- index: every process's global rank ---

// A process's global rank: the NCCL log's (Context::rank_of), else its comm rank in RAS's world communicator.
struct RasRanks {
    const Context& context;
    std::map<NcclProcess, std::int64_t> global;

    std::optional<std::int64_t> operator()(const std::string& host, std::int64_t pid) const {
        if (host.empty() && pid == 0) return std::nullopt;  // NCCL 2.24's text names some ranks by number only
        if (const auto g = context.rank_of({host, pid})) return g;
        if (const auto it = global.find({host, pid}); it != global.end()) return it->second;
        return std::nullopt;
    }
};

// Global ranks by process: RAS's largest communicator (torch's default group) gives them as its comm ranks, else
// the NCCL log's processes. Notes each rank named, and the world's size.
RasRanks index_ras_ranks(Context& context) {
    RasRanks ranks{context, {}};
    for (const auto& status : context.records.ras) {
        const RasCommunicator* world = nullptr;
        for (const auto& c : status.communicators)
            if (!world || c.size > world->size) world = &c;
        // The text form prints a communicator only when something is wrong with it: the largest printed is the
        // world only when the table's largest size is its.
        if (status.text_form) context.world = std::max(context.world, status.largest_comm_size);
        if (status.text_form && world && world->size < status.largest_comm_size) world = nullptr;
        if (!world) continue;
        context.world = std::max(context.world, world->size);
        for (const auto& r : world->ranks) {
            ranks.global.emplace(NcclProcess{r.host, r.pid}, r.rank);
            note_rank(context.out, r.rank, r.host, r.pid ? std::optional(r.pid) : std::nullopt);
        }
        for (const auto& r : world->missing_ranks)
            if (!r.host.empty() || r.pid != 0) {
                ranks.global.emplace(NcclProcess{r.host, r.pid}, r.rank);
                note_rank(context.out, r.rank, r.host, r.pid ? std::optional(r.pid) : std::nullopt);
            }
    }
    return ranks;
}

// The ranks RAS cannot reach (global rank -> how, and the status that says it), one finding per rank.
struct Unreachable {
    std::map<std::int64_t, std::string> how;
    std::map<std::int64_t, std::string> source;
};

// --- place: one communicator read and placed ---

// A communicator as RAS shows it: the group placed, its members still in init or in error, and its members by the
// collectives they launched.
struct CommunicatorRead {
    ObservedGroup group;
    std::vector<std::int64_t> in_init, errors;
    std::map<std::uint64_t, std::vector<std::int64_t>> by_total;
};

// The members RAS names (each one's global rank and how many collectives it launched) and those it cannot reach
// (into unreachable: a dead rank's words win over another status's), then the group placed by their comm ranks.
CommunicatorRead read_communicator(const Context& context, const RasRanks& rank_of, const RasStatus& status,
                                   const RasCommunicator& c, Unreachable& unreachable) {
    CommunicatorRead read;
    ObservedGroup& group = read.group;
    group.source = "NCCL RAS";
    group.id = "commId " + c.hash;
    group.size = c.size;
    group.sources = {status.file};
    std::vector<std::pair<std::int64_t, std::int64_t>> positions;
    for (const auto& r : c.ranks) {
        const auto g = rank_of(r.host, r.pid);
        if (!g) continue;
        group.seen.push_back(*g);
        positions.emplace_back(r.rank, *g);
        if (r.init_state == 7) read.in_init.push_back(*g);  // ncclInProgress
        if ((r.init_state != 0 && r.init_state != 7) || (r.async_error != 0 && r.async_error != 7))
            read.errors.push_back(*g);
        std::uint64_t total = 0;
        for (const auto& [op, n] : r.collective_counts) total += n;
        read.by_total[total].push_back(*g);
    }
    for (const auto& m : c.missing_ranks) {
        auto g = rank_of(m.host, m.pid);
        // The text form's world communicator (the table's largest): its comm ranks are the global ranks, even for
        // a rank RAS names by number only (NCCL 2.24).
        if (!g && status.text_form && c.size == status.largest_comm_size) g = m.rank;
        if (!g) continue;
        positions.emplace_back(m.rank, *g);
        const std::string how = m.considered_dead ? "is dead (NCCL RAS could not reach it for 60 s or more)"
                                : m.unresponsive  ? "is unresponsive (NCCL RAS reaches its host, not it)"
                                                  : "did not answer NCCL RAS";
        if (!unreachable.how.count(*g) || m.considered_dead) {
            unreachable.how[*g] =
                (m.host.empty() && m.pid == 0 ? "" : "(" + m.host + " pid " + std::to_string(m.pid) + ") ") + how;
            unreachable.source[*g] = status.file;
        }
    }
    std::sort(group.seen.begin(), group.seen.end());
    place_group(context, group, positions, {});
    return read;
}

// The global ranks of the members RAS cannot reach, by the plan's group where RAS gives only their comm ranks.
std::vector<std::int64_t> gone_members(const RasRanks& rank_of, const RasStatus& status, const RasCommunicator& c,
                                       const ObservedGroup& group) {
    std::vector<std::int64_t> gone;
    for (const auto& m : c.missing_ranks) {
        auto g = rank_of(m.host, m.pid);
        if (!g && status.text_form && c.size == status.largest_comm_size) g = m.rank;
        if (!g && group.place && m.rank >= 0 && m.rank < static_cast<std::int64_t>(group.place->members.size()))
            g = group.place->members[static_cast<std::size_t>(m.rank)];
        if (g) gone.push_back(*g);
    }
    return gone;
}

// --- judge: who waits on whom, and the communicator's findings ---

// Who waits on whom in this communicator: a rank waits on the ranks RAS cannot reach, and (counts read alone, or
// stalled at this poll) on the ranks that launched fewer collectives. The text form's ranks are judged by
// text_findings, and its members on the plan, but those RAS cannot reach, wait for those. Returns whether the text
// form judged the ranks behind.
bool note_waits(Context& context, const RasStatus& status, const RasCommunicator& c, CommunicatorRead& read,
                const std::vector<std::int64_t>& gone, const RasRanks& rank_of) {
    const ObservedGroup& group = read.group;
    const auto in_init = [&](std::int64_t r) {
        return std::find(read.in_init.begin(), read.in_init.end(), r) != read.in_init.end();
    };
    if (!status.text_form) {
        const bool counts_stalled = behind_words(context, c).has_value();
        std::vector<std::int64_t> lower;
        for (const auto& [total, ranks] : read.by_total) {
            for (const std::int64_t r : ranks) {
                std::vector<std::int64_t> on = gone;
                if (counts_stalled) on.insert(on.end(), lower.begin(), lower.end());
                note_blocked(context, r, group, c.hash, static_cast<std::int64_t>(total),
                             in_init(r) ? "init" : "collective", std::move(on), status.file);
            }
            lower.insert(lower.end(), ranks.begin(), ranks.end());
        }
        return false;
    }
    text_findings(context, status, c, group, read.in_init, rank_of);
    for (const std::int64_t r : group.place ? group.place->members : group.seen)
        if (std::find(gone.begin(), gone.end(), r) == gone.end())
            note_blocked(context, r, group, c.hash, 0, c.status == "INIT" || in_init(r) ? "init" : "collective", gone,
                         status.file);
    return true;
}

// communicator_not_formed (members still in init), collective_stuck (members behind, when the text form has not
// said it already) and rank_error, in that order.
void communicator_findings(Context& context, const RasStatus& status, const RasCommunicator& c, CommunicatorRead& read,
                           bool in_init_text) {
    const ObservedGroup& group = read.group;
    const std::string id_part = group.place ? group.place->dim + "/" + std::to_string(group.place->index) : c.hash;
    std::vector<std::int64_t>& in_init = read.in_init;
    std::vector<std::int64_t>& errors = read.errors;
    for (auto* list : {&in_init, &errors}) std::sort(list->begin(), list->end());
    if (!in_init.empty()) {
        Finding f;
        f.kind = FindingKind::communicator_not_formed;
        f.id = "communicator_not_formed/" + id_part;
        f.ranks = in_init;
        f.message = "the " + group.label() + " communicator never formed: " + ranks_words(in_init) +
                    (in_init.size() == 1 ? " is" : " are") + " still in init (NCCL RAS)";
        f.fix =
            "Check that every member of this group is running and can reach its peers (NCCL_DEBUG=INFO "
            "init lines, the network between their hosts); a communicator waits for every member.";
        context.out.findings.push_back({std::move(f), {status.file}});
    }
    const auto stalled = behind_words(context, c);
    if (!in_init_text && read.by_total.size() > 1 && stalled) {
        const auto& [low, low_ranks] = *read.by_total.begin();
        const auto& [high, high_ranks] = *read.by_total.rbegin();
        Finding f;
        f.kind = FindingKind::collective_stuck;
        f.id = "collective_stuck/" + id_part;
        f.ranks = low_ranks;
        std::sort(f.ranks.begin(), f.ranks.end());
        f.message = "the " + group.label() + " communicator: " + ranks_words(f.ranks) + " launched " +
                    std::to_string(low) + " collectives, " + ranks_words(high_ranks) + " launched " +
                    std::to_string(high) + "; " + ranks_words(f.ranks) + (f.ranks.size() == 1 ? " is" : " are") +
                    " behind" + *stalled + " (NCCL RAS)";
        f.fix = "Look at what " + ranks_words(f.ranks) + (f.ranks.size() == 1 ? " is" : " are") +
                " doing instead (py-spy dump --pid, its log, Flight Recorder): every member of the group "
                "waits for the ranks that are behind.";
        context.out.findings.push_back({std::move(f), {status.file}});
    }
    if (!errors.empty()) {
        Finding f;
        f.kind = FindingKind::rank_error;
        f.id = "rank_error/ras/" + c.hash;
        f.ranks = errors;
        f.message = ranks_words(errors) + " report an NCCL error (init or asynchronous) on the " + group.label() +
                    " communicator (NCCL RAS)";
        f.fix =
            "Read these ranks' logs with NCCL_DEBUG=INFO for the failing communicator (network, GPU, NCCL "
            "version), fix it and relaunch.";
        context.out.findings.push_back({std::move(f), {status.file}});
    }
}

// --- report: one peer_unreachable a rank RAS cannot reach, kept for the verdict too ---

void report_unreachable(Context& context, const Unreachable& unreachable) {
    for (const auto& [rank, how] : unreachable.how) {
        const std::string& source = unreachable.source.at(rank);
        context.unreachable[rank] = {how, source};
        Finding f;
        f.kind = FindingKind::peer_unreachable;
        f.id = "peer_unreachable/" + std::to_string(rank);
        f.ranks = {rank};
        f.message = "rank " + std::to_string(rank) + " " + how;
        f.fix = "Check rank " + std::to_string(rank) +
                "'s process and host (the scheduler's log, dmesg, the NIC); every communicator it belongs to waits "
                "for it.";
        context.out.findings.push_back({std::move(f), {source}});
    }
}
}  // namespace

// The stages: every process's global rank, then each communicator read and placed, who waits on whom in it and its
// findings, then the ranks RAS cannot reach.
void diagnose_ras(Context& context) {
    const RasRanks rank_of = index_ras_ranks(context);
    Unreachable unreachable;
    for (const auto& status : context.records.ras)
        for (const auto& c : status.communicators) {
            CommunicatorRead read = read_communicator(context, rank_of, status, c, unreachable);
            const std::vector<std::int64_t> gone = gone_members(rank_of, status, c, read.group);
            const bool in_init_text = note_waits(context, status, c, read, gone, rank_of);
            communicator_findings(context, status, c, read, in_init_text);
            context.out.groups.push_back(std::move(read.group));
        }
    report_unreachable(context, unreachable);
}

}  // namespace meshscope::records::detail
