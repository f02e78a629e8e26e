// NCCL INFO lines -> communicators: who started each, who completed it, who never appeared.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "records/diagnose_internal.h"

namespace meshscope::records::detail {

namespace {
std::string hex(std::uint64_t v) {
    char buffer[24];
    std::snprintf(buffer, sizeof buffer, "0x%llx", static_cast<unsigned long long>(v));
    return buffer;
}

struct Member {
    NcclProcess process;
    bool started = false, completed = false, aborted = false;
    std::string first_source;
};

struct Comm {
    std::string id;
    std::int64_t nranks = 0;
    std::map<std::int64_t, Member> members;  // by comm rank
    std::vector<std::string> sources;
};

// Groups the init lines into communicators. Normal inits are one communicator per commId; a split is its parent's
// communicator plus the split's ordinal (splitCount/childCount when printed, else the count of splits of that
// parent seen in the process, which every member calls in the same order) plus its color.
std::map<std::string, Comm> assemble(const NcclLog& log) {
    std::map<std::string, Comm> comms;
    std::map<std::pair<NcclProcess, std::string>, std::string> key_of;   // (process, comm address) -> key
    std::map<std::pair<NcclProcess, std::string>, std::int64_t> splits;  // (process, parent address) -> splits
    std::map<std::pair<NcclProcess, std::int64_t>, std::int64_t> plain;  // (process, nranks) -> inits without id
    for (const NcclCommLine& line : log.comm_lines) {
        const auto address = std::pair{line.process, line.comm};
        std::string key;
        if (line.stage == NcclStage::init_start) {
            if (!line.parent.empty()) {
                const auto parent = key_of.find({line.process, line.parent});
                const std::string parent_key = parent == key_of.end() ? "parent " + line.parent : parent->second;
                const std::int64_t ordinal =
                    line.split_count ? *line.split_count : ++splits[{line.process, line.parent}];
                key = parent_key + " split " + std::to_string(ordinal) + " color " +
                      std::to_string(line.color.value_or(0));
            } else if (line.comm_id)
                key = "commId " + hex(*line.comm_id);
            else
                key = "nranks " + std::to_string(line.nranks) + " init " +
                      std::to_string(++plain[{line.process, line.nranks}]);
            key_of[address] = key;
        } else {
            const auto known = key_of.find(address);
            if (known != key_of.end())
                key = known->second;
            else if (line.comm_id && line.parent.empty())
                key_of[address] = key = "commId " + hex(*line.comm_id);  // its START is not in the excerpt
            else if (!line.parent.empty() && line.split_count) {
                // a split whose START is not in the excerpt: its count names it as well as the START would
                const auto parent = key_of.find({line.process, line.parent});
                key_of[address] = key = (parent == key_of.end() ? "parent " + line.parent : parent->second) +
                                        " split " + std::to_string(*line.split_count) + " color " +
                                        std::to_string(line.color.value_or(0));
            } else
                continue;  // a COMPLETE or Abort of a communicator whose START the log does not have
        }
        Comm& comm = comms[key];
        comm.id = key;
        comm.nranks = std::max(comm.nranks, line.nranks);
        Member& m = comm.members[line.rank];
        if (m.first_source.empty()) {
            m.process = line.process;
            m.first_source = line.source.text();
            if (comm.sources.size() < 8) comm.sources.push_back(m.first_source);
        }
        if (line.stage == NcclStage::init_start) m.started = true;
        if (line.stage == NcclStage::init_complete) m.completed = m.started = true;
        if (line.stage == NcclStage::abort_start || line.stage == NcclStage::abort_complete) m.aborted = true;
    }
    return comms;
}
}  // namespace

std::optional<std::int64_t> Context::rank_of(const NcclProcess& p) const {
    const auto it = std::lower_bound(process_ranks.begin(), process_ranks.end(), p,
                                     [](const auto& entry, const NcclProcess& q) { return entry.first < q; });
    if (it == process_ranks.end() || it->first != p) return std::nullopt;
    return it->second;
}

void note_rank(Diagnosis& diagnosis, std::int64_t rank, const std::string& host, std::optional<std::int64_t> pid) {
    auto& ranks = diagnosis.ranks;
    auto it = std::lower_bound(ranks.begin(), ranks.end(), rank,
                               [](const RecordsRank& r, std::int64_t value) { return r.rank < value; });
    if (it == ranks.end() || it->rank != rank)
        it = ranks.insert(it, RecordsRank{rank, std::nullopt, std::nullopt, std::nullopt});
    if (!it->host && !host.empty()) it->host = host;
    if (!it->pid && pid) it->pid = pid;
}

void find_process_ranks(Context& context) {
    const NcclLog& log = context.records.nccl;
    std::map<NcclProcess, std::int64_t> ranks;
    for (const auto& line : log.comm_lines)
        if (line.launcher_rank) ranks.emplace(line.process, *line.launcher_rank);
    for (const auto& warn : log.warnings)
        if (warn.launcher_rank) ranks.emplace(warn.process, *warn.launcher_rank);
    // Without a launcher's prefix, a process's global rank is its rank in the largest communicator made by
    // ncclCommInitRank (not a split): torch's default group, of every rank.
    std::int64_t world = 0;
    for (const auto& line : log.comm_lines)
        if (line.parent.empty()) world = std::max(world, line.nranks);
    for (const auto& line : log.comm_lines)
        if (line.parent.empty() && line.nranks == world) ranks.emplace(line.process, line.rank);
    for (const auto& [process, rank] : ranks) world = std::max(world, rank + 1);
    context.process_ranks.assign(ranks.begin(), ranks.end());
    context.world = std::max(context.world, world);
}

void place_group(const Context& context, ObservedGroup& group,
                 std::span<const std::pair<std::int64_t, std::int64_t>> positions, std::string_view hint) {
    group.place.reset();
    group.nearest.reset();
    group.shared = 0;
    if (!context.plan) return;
    if (!hint.empty() && !group.seen.empty() && context.plan->along(hint, group.seen.front())) {
        // A group that names its dim (Flight Recorder's "mesh_ep", or its split's siblings) is that dim's group of
        // its members, or no group of the plan; an NCCL communicator's size must match too.
        auto p = context.plan->along(hint, group.seen.front());
        const auto inside = [&](std::int64_t r) { return std::binary_search(p->members.begin(), p->members.end(), r); };
        const bool fits = std::all_of(group.seen.begin(), group.seen.end(), inside) &&
                          (positions.empty() || static_cast<std::int64_t>(p->members.size()) == group.size);
        if (fits) {
            group.place = std::move(p);
        } else {
            group.shared = std::count_if(group.seen.begin(), group.seen.end(), inside);
            group.nearest = std::move(p);
        }
        return;
    }
    if (static_cast<std::int64_t>(group.seen.size()) == group.size) group.place = context.plan->exact(group.seen, hint);
    if (!group.place && !positions.empty()) group.place = context.plan->by_positions(group.size, positions, hint);
    if (!group.place) std::tie(group.nearest, group.shared) = context.plan->nearest(group.seen);
}

std::vector<std::vector<std::int64_t>> complete_nccl_groups(const Context& context) {
    std::vector<std::vector<std::int64_t>> out;
    for (const auto& [key, comm] : assemble(context.records.nccl)) {
        if (static_cast<std::int64_t>(comm.members.size()) != comm.nranks) continue;
        std::vector<std::int64_t> members;
        for (const auto& [r, m] : comm.members)
            if (const auto g = context.rank_of(m.process)) members.push_back(*g);
        std::sort(members.begin(), members.end());
        members.erase(std::unique(members.begin(), members.end()), members.end());
        if (static_cast<std::int64_t>(members.size()) == comm.nranks) out.push_back(std::move(members));
    }
    return out;
}

namespace {
// A communicator assembled from its lines, placed: the global ranks that started, completed and are still in init.
struct Built {
    Comm comm;
    ObservedGroup group;
    std::vector<std::pair<std::int64_t, std::int64_t>> positions;
    std::vector<std::int64_t> started, completed, pending;
    std::string family;  // "commId 0x.. split 2": the communicators one ncclCommSplit call made
};

// --- index and place: every communicator of the log ---

std::vector<Built> build_communicators(const Context& context) {
    std::vector<Built> built;
    for (auto& [key, comm] : assemble(context.records.nccl)) {
        Built b;
        b.group.source = "NCCL log";
        b.group.id = comm.id;
        b.group.size = comm.nranks;
        b.group.sources = comm.sources;
        for (const auto& [r, m] : comm.members) {
            const auto global = context.rank_of(m.process);
            if (!global) continue;
            b.group.seen.push_back(*global);
            b.positions.emplace_back(r, *global);
            if (m.started) b.started.push_back(*global);
            if (m.completed) b.completed.push_back(*global);
            if (m.started && !m.completed) b.pending.push_back(*global);
        }
        for (auto* list : {&b.group.seen, &b.started, &b.completed, &b.pending}) std::sort(list->begin(), list->end());
        if (const std::size_t color = comm.id.rfind(" color ");
            color != std::string::npos && comm.id.find(" split ") != std::string::npos)
            b.family = comm.id.substr(0, color);
        place_group(context, b.group, b.positions, {});
        b.comm = std::move(comm);
        built.push_back(std::move(b));
    }
    return built;
}

// The communicators of one split are one dim's groups: the dim most of them sit on (groups of more than one rank)
// names the rest, so that a one-rank leftover of a bad color is not taken for an edp group.
void place_split_families(const Context& context, std::vector<Built>& built) {
    std::map<std::string, std::map<std::string, int>> family_dims;
    for (const auto& b : built)
        if (!b.family.empty() && b.group.place && b.group.place->mesh != "world" && b.group.place->members.size() > 1)
            ++family_dims[b.family][b.group.place->dim];
    for (auto& b : built) {
        const auto f = family_dims.find(b.family);
        if (b.family.empty() || f == family_dims.end()) continue;
        const auto best = std::max_element(f->second.begin(), f->second.end(),
                                           [](const auto& x, const auto& y) { return x.second < y.second; });
        if (!b.group.place || b.group.place->dim != best->first)
            place_group(context, b.group, b.positions, best->first);
    }
}

// --- judge: a communicator that never formed, or one the plan does not have ---

// The members that never appeared in a communicator none completed: by global rank where the plan places it, else
// by communicator rank, else only how many.
struct NeverAppeared {
    std::vector<std::int64_t> never;  // global ranks
    std::string text;                 // "ranks 4, 5 never appeared", "communicator rank 3 never appeared", ""
};

NeverAppeared never_appeared(const Built& b, bool all_seen) {
    NeverAppeared out;
    const Comm& comm = b.comm;
    const ObservedGroup& group = b.group;
    if (b.completed.empty() && group.place) {
        for (const std::int64_t r : group.place->members)
            if (!std::binary_search(group.seen.begin(), group.seen.end(), r)) out.never.push_back(r);
        if (!out.never.empty()) out.text = ranks_words(out.never) + " never appeared";
    } else if (b.completed.empty() && !all_seen && comm.nranks <= (1 << 20)) {
        std::vector<std::int64_t> absent;
        for (std::int64_t r = 0; r < comm.nranks; ++r)
            if (!comm.members.count(r)) absent.push_back(r);
        out.text = "communicator " + ranks_words(absent) + " never appeared";
    } else if (b.completed.empty() && !all_seen) {
        out.text = std::to_string(comm.nranks - static_cast<std::int64_t>(comm.members.size())) +
                   " communicator ranks never appeared";
    }
    return out;
}

// The fix names the ranks at fault, or the processes to look for when only their communicator ranks are known.
std::string not_formed_fix(const std::vector<std::int64_t>& ranks, const std::string& never_text) {
    std::string culprits_text;
    bool one = ranks.size() == 1;
    if (!ranks.empty())
        culprits_text = ranks_words(ranks);
    else if (never_text.rfind("communicator ", 0) == 0) {
        // "communicator rank 3 never appeared": their global ranks need a plan to place the communicator
        culprits_text = "the processes of " + never_text.substr(0, never_text.size() - 15) +
                        " (their global ranks: give --plan or --dp --cp --ep)";
        one = false;
    } else if (!never_text.empty()) {
        culprits_text = "the processes of the " + never_text.substr(0, never_text.size() - 15) +
                        " that never appeared (their global ranks: give --plan or --dp --cp --ep)";
        one = false;
    } else {
        culprits_text = "every member of this communicator";
        one = true;
    }
    return "Start every rank with the same plan (dp, cp, ep and creation order) and check that " + culprits_text +
           (one ? " is running and can reach its peers" : " are running and can reach their peers") +
           "; a communicator waits for every member and NCCL would hang here.";
}

// communicator_not_formed: the members that never appeared or never completed; every member that started waits in
// this init for those that never appeared.
void not_formed_finding(Context& context, const Built& b) {
    const Comm& comm = b.comm;
    const ObservedGroup& group = b.group;
    const auto& started = b.started;
    const auto& completed = b.completed;
    const auto& pending = b.pending;
    const bool all_seen = static_cast<std::int64_t>(comm.members.size()) == comm.nranks;
    const NeverAppeared absent = never_appeared(b, all_seen);
    const auto& never = absent.never;
    Finding f;
    f.kind = FindingKind::communicator_not_formed;
    f.id = "communicator_not_formed/" +
           (group.place ? group.place->dim + "/" + std::to_string(group.place->index) : comm.id);
    // The ranks at fault: those that never appeared; when only their communicator ranks are known (no plan places
    // the communicator), none is named, never those that started init and wait for them.
    f.ranks = !never.empty() ? never : !completed.empty() || all_seen ? pending : std::vector<std::int64_t>{};
    if (completed.empty() && !never.empty())
        for (const std::int64_t r : started) {  // every member that started waits in this init for them
            Position p = blocked_in(group, r, "NCCL log", comm.id);
            p.op = "init";
            p.waits_on = never;
            p.files = group.sources;
            context.positions.push_back(std::move(p));
        }
    const std::string subject = "the " + group.label() + (group.place ? " communicator" : "");
    if (!completed.empty()) {
        f.message = subject + " formed, but " + ranks_words(pending) + " never completed " +
                    (pending.size() == 1 ? "its" : "their") + " init; " + ranks_words(completed) +
                    " completed (NCCL log)";
    } else {
        f.message = subject + " never formed: ";
        std::vector<std::string> parts;
        if (!absent.text.empty()) parts.push_back(absent.text);
        if (!started.empty()) parts.push_back(ranks_words(started) + " started init");
        parts.push_back("none completed");
        for (std::size_t i = 0; i < parts.size(); ++i) f.message += (i ? "; " : "") + parts[i];
        f.message += " (NCCL log)";
    }
    f.fix = not_formed_fix(f.ranks, absent.text);
    context.out.findings.push_back({std::move(f), group.sources});
}

// group_disagreement: a communicator that formed where the plan has no such group; the ranks outside the nearest.
void disagreement_finding(Context& context, const Built& b) {
    const ObservedGroup& group = b.group;
    Finding f;
    f.kind = FindingKind::group_disagreement;
    f.id = "group_disagreement/" + b.comm.id;
    std::vector<std::int64_t> outside;
    if (group.nearest)
        for (const std::int64_t r : group.seen)
            if (!std::binary_search(group.nearest->members.begin(), group.nearest->members.end(), r))
                outside.push_back(r);
    f.ranks = outside.empty() ? group.seen : outside;
    f.message = "the " + group.label() + " " + members_text(group.seen) + " is not a group of the plan " +
                context.plan->layout_text();
    if (group.nearest)
        f.message += "; the nearest is " + group.nearest->label() + " (" + std::to_string(group.shared) + " shared)";
    f.message += " (NCCL log)";
    f.fix =
        "Compare the job's layout (dist_config ep_size, cp_size, the world size and the mesh code) with "
        "the plan: " +
        ranks_words(f.ranks) + " built a communicator that none of the plan's meshes has.";
    context.out.findings.push_back({std::move(f), group.sources});
}
}  // namespace

// The stages: every communicator assembled and placed, split families placed together, then each judged.
void diagnose_nccl(Context& context) {
    std::vector<Built> built = build_communicators(context);
    place_split_families(context, built);
    for (auto& b : built) {
        // NCCL completes an init only after every member joined its bootstrap: one COMPLETE proves the communicator
        // formed, even when the log (an excerpt, a lost file) lacks other members' lines.
        const bool formed = !b.completed.empty() && b.pending.empty();
        if (!formed)
            not_formed_finding(context, b);
        else if (context.plan && !b.group.place)
            disagreement_finding(context, b);
        context.out.groups.push_back(std::move(b.group));
    }
}

}  // namespace meshscope::records::detail
