// The root cause of a hang across groups (verdict.h): every rank's Position from each source, who waits on whom,
// the chains followed to their ends (the sink components of the wait-for graph), one Verdict per end.
#include "meshscope/records/verdict.h"

#include <algorithm>
#include <climits>
#include <map>
#include <set>
#include <unordered_map>

#include "meshscope/mesh/parallel_for.h"
#include "records/diagnose_internal.h"

namespace meshscope::records {

std::string_view to_string(Verdict::Cause cause) noexcept {
    switch (cause) {
        case Verdict::Cause::skipped: return "skipped";
        case Verdict::Cause::out_of_order: return "called_out_of_order";
        case Verdict::Cause::other_collective: return "called_another_collective";
        case Verdict::Cause::wait_each_other: return "wait_on_each_other";
        case Verdict::Cause::no_record: return "no_record";
        case Verdict::Cause::dead: return "dead";
        case Verdict::Cause::outside: return "outside_collectives";
    }
    return "no_record";
}

std::string_view to_string(Position::State state) noexcept {
    switch (state) {
        case Position::State::blocked: return "blocked";
        case Position::State::completed: return "completed";
        case Position::State::none: return "none";
    }
    return "none";
}

namespace detail {

namespace {

// "ep group 3's all_to_all at seq 2", "ep group 1's init", "ep group 1's collective 57 (NCCL RAS)"
std::string call_text(const Position& p) {
    if (p.op == "init") return p.name + "'s init";
    if (p.op == "creation") return p.name + "'s creation";
    if (p.source == "NCCL RAS" && p.seq <= 0) return p.name + "'s " + (p.op == "collective" ? "collectives" : p.op);
    if (p.source == "NCCL RAS") return p.name + "'s " + p.op + " " + std::to_string(p.seq);
    return p.name + "'s " + p.op + " at seq " + std::to_string(p.seq);
}

// A group of Flight Recorder's, as every rank names it (pg name), placed as diagnose_fr places it.
struct FrGroup {
    std::string desc;
    std::vector<std::int64_t> members;  // sorted
    std::optional<PlanPlace> place;
    std::string id, label, name, key;
    std::string order_dim;  // what an entry on it is called in the common order: its dim, else its desc
};

// One rank's collectives in the order it called them, and how far it reached on each group.
struct FrRank {
    const FrDump* dump = nullptr;
    std::vector<const FrEntry*> calls;  // not p2p, seq > 0, by record id
    // With Flight Recorder's states (NCCL): the first call not completed, where it is blocked; calls after it were
    // only enqueued. Without (gloo: every entry "scheduled"): its last call.
    std::optional<std::size_t> blocked;
    std::map<std::string, std::int64_t> reached;  // pg name -> the highest seq it reached
};

struct Key {
    std::string dim;
    std::int64_t seq = 0;
    std::string op;
    friend auto operator<=>(const Key&, const Key&) = default;
};

class FrView {
public:
    // Each rank's calls read on a few threads (a job of 16,384 ranks holds 32 million entries), then every group
    // its dumps name placed on the plan.
    explicit FrView(const Context& context) {
        for (const auto& d : context.records.dumps)
            if (d.rank >= 0) by_rank_.emplace(d.rank, FrRank{&d, {}, {}, {}});
        std::vector<FrRank*> ranks;
        ranks.reserve(by_rank_.size());
        for (auto& [rank, r] : by_rank_) ranks.push_back(&r);
        ranks_.assign(ranks.begin(), ranks.end());
        noted_.resize(ranks.size());
        parallel_for(ranks.size(), parallel_threads(ranks.size(), 8),
                     [&](std::size_t i) { noted_[i] = read_calls(*ranks[i]); });
        std::map<std::string, std::pair<std::string, std::set<std::int64_t>>> pgs;  // name -> desc, seen
        for (std::size_t i = 0; i < ranks.size(); ++i)
            for (const FrGroupName* group : noted_[i]) {
                auto& [desc, seen] = pgs[group->name];
                if (desc.empty() || desc == "undefined") desc = group->desc;
                seen.insert(ranks[i]->dump->rank);
            }
        std::map<std::string, const std::vector<std::int64_t>*> config;
        for (const auto& [rank, r] : by_rank_)
            for (const auto& [name, c] : r.dump->pg_config)
                if (!c.ranks->empty()) config.emplace(name, c.ranks.get());
        for (const auto& [name, found] : pgs) {
            const auto& [desc, seen] = found;
            FrGroup g;
            g.desc = desc;
            ObservedGroup observed;
            observed.id = desc == "default_pg" ? "default_pg" : "process group " + name + " (" + desc + ")";
            observed.seen.assign(seen.begin(), seen.end());
            std::vector<std::int64_t> members = observed.seen;
            if (const auto it = config.find(name); it != config.end()) {
                members = *it->second;
                std::sort(members.begin(), members.end());
            }
            if (desc == "default_pg") {
                members.clear();
                const std::int64_t world =
                    std::max<std::int64_t>(context.world, static_cast<std::int64_t>(by_rank_.size()));
                for (std::int64_t r = 0; r < world && r < (1 << 20); ++r) members.push_back(r);
            }
            observed.size = static_cast<std::int64_t>(members.size());
            if (context.plan) {
                if (desc == "default_pg" && observed.size == context.plan->world())
                    observed.place = PlanPlace{"world", "world", 0, members};
                else
                    place_group(context, observed, {}, desc == "default_pg" ? std::string() : dim_from_desc(desc));
                if (observed.place) members = observed.place->members;
            }
            g.members = std::move(members);
            g.place = observed.place;
            g.id = observed.id;
            g.label = g.place && g.place->mesh == "world" ? "default_pg" : observed.label();
            g.name = g.place ? (g.place->mesh == "world" ? "default_pg"
                                                         : g.place->dim + " group " + std::to_string(g.place->index))
                             : observed.id;
            g.key = g.place ? g.place->dim + "/" + std::to_string(g.place->index) : observed.id;
            g.order_dim = g.place ? g.place->dim : desc == "default_pg" ? "world" : desc;
            groups_.emplace(name, std::move(g));
        }
        for (const auto& noted : noted_)
            for (const FrGroupName* name : noted) group_of_.emplace(name, &groups_.at(name->name));
    }

    [[nodiscard]] bool has(std::int64_t rank) const { return by_rank_.count(rank) > 0; }
    [[nodiscard]] const std::map<std::int64_t, FrRank>& ranks() const { return by_rank_; }

    [[nodiscard]] Key key(const FrEntry& e) const {
        return {groups_.at(e.pg_name()).order_dim, e.collective_seq_id, std::string(e.collective())};
    }

    [[nodiscard]] Position position_of(const FrEntry& e, std::int64_t rank) const {
        const FrGroup& g = groups_.at(e.pg_name());
        Position p;
        p.rank = rank;
        p.source = "Flight Recorder";
        if (g.place) {
            p.mesh = g.place->mesh;
            p.dim = g.place->dim;
            p.index = g.place->index;
        }
        p.label = g.label;
        p.name = g.name;
        p.key = g.key;
        p.seq = e.collective_seq_id;
        p.op = std::string(e.collective());
        p.files = {by_rank_.at(rank).dump->file};
        return p;
    }

    // Where a rank with a dump stands: blocked in its collective with the members that never reached it, or its
    // last collective completed (every member reached it). A member without a dump may not have reached it.
    [[nodiscard]] Position position(std::int64_t rank) {
        const FrRank& r = by_rank_.at(rank);
        if (!r.blocked) {
            Position p;
            p.rank = rank;
            p.state = Position::State::completed;
            p.source = "Flight Recorder";
            p.files = {r.dump->file};
            return p;
        }
        const FrEntry& e = *r.calls[*r.blocked];
        Position p = position_of(e, rank);
        const auto cached = behind_.find({e.pg_name(), e.collective_seq_id});
        if (cached == behind_.end()) {
            std::vector<std::int64_t> behind;
            for (const std::int64_t m : groups_.at(e.pg_name()).members) {
                const auto it = by_rank_.find(m);
                if (it == by_rank_.end()) {
                    behind.push_back(m);
                    continue;
                }
                const auto s = it->second.reached.find(e.pg_name());
                if (s == it->second.reached.end() || s->second < e.collective_seq_id) behind.push_back(m);
            }
            p.waits_on = behind_.emplace(std::pair{e.pg_name(), e.collective_seq_id}, std::move(behind)).first->second;
        } else
            p.waits_on = cached->second;
        std::erase(p.waits_on, rank);
        p.state = p.waits_on.empty() ? Position::State::completed : Position::State::blocked;
        return p;
    }

    // Its latest collective on each group it called, latest first (at most HangPosition::max_last): those it
    // reached, not those NCCL only enqueued after the one it is blocked in.
    [[nodiscard]] std::vector<RecordsCall> last_calls(std::int64_t rank, bool blocked_completes) const {
        const FrRank& r = by_rank_.at(rank);
        const std::size_t end = r.blocked ? *r.blocked + 1 : r.calls.size();
        std::vector<RecordsCall> out;
        std::set<std::string> seen;
        // Every group it reached is in `reached`: once each has its latest call, the older calls change nothing
        // (a rank's ring buffer holds thousands of calls on a handful of groups).
        const std::size_t groups = std::min(HangPosition::max_last, r.reached.size());
        for (std::size_t i = end; i-- > 0 && out.size() < groups;) {
            const FrEntry& e = *r.calls[i];
            if (!seen.insert(e.pg_name()).second) continue;
            const FrGroup& g = groups_.at(e.pg_name());
            RecordsCall c;
            c.dim = g.place ? g.place->dim : std::string();
            c.group = g.place ? g.place->index : -1;
            c.seq = e.collective_seq_id;
            c.op = std::string(e.collective());
            c.completed = !r.blocked || i != *r.blocked || blocked_completes;
            out.push_back(std::move(c));
        }
        return out;
    }

    // Whether `rank` left the common order at the collective `missed` (a Flight Recorder position its peers wait in
    // for it): how, and where it went instead. The common order is that of a rank that called the missed
    // collective (on its own group of the dim) and went furthest past it, preferably one outside `cycle`.
    struct Departure {
        Verdict::Cause cause;
        Position instead;
    };
    [[nodiscard]] std::optional<Departure> departure(std::int64_t rank, const Position& missed,
                                                     const std::set<std::int64_t>& cycle) const {
        const auto b = by_rank_.find(rank);
        if (b == by_rank_.end() || b->second.calls.empty()) return std::nullopt;
        const Key k{missed.dim.empty() ? std::string() : missed.dim, missed.seq, missed.op};
        const FrRank* reference = nullptr;
        std::size_t at = 0;
        std::pair<bool, std::size_t> best{false, 0};
        for (const auto& [r, fr] : by_rank_) {
            if (r == rank) continue;
            for (std::size_t i = 0; i < fr.calls.size(); ++i) {
                // The seq and op first: a key (its group looked up by name) only for the few calls that match them.
                if (fr.calls[i]->collective_seq_id != k.seq || fr.calls[i]->collective() != k.op) continue;
                const Key ki = key(*fr.calls[i]);
                if (!k.dim.empty() && ki.dim != k.dim) continue;
                const std::pair<bool, std::size_t> score{!cycle.count(r), fr.calls.size() - i};
                if (!reference || score > best) {
                    reference = &fr;
                    at = i;
                    best = score;
                }
                break;
            }
        }
        if (!reference) return std::nullopt;
        std::set<Key> before;
        std::map<Key, std::size_t> after;
        for (std::size_t i = 0; i < at; ++i) before.insert(key(*reference->calls[i]));
        for (std::size_t i = at + 1; i < reference->calls.size(); ++i) after.emplace(key(*reference->calls[i]), i);
        const Key missed_key = key(*reference->calls[at]);
        const FrRank& fr = b->second;
        const std::size_t end = fr.blocked ? *fr.blocked + 1 : fr.calls.size();
        for (std::size_t j = 0; j < end; ++j) {
            const Key kj = key(*fr.calls[j]);
            if (before.count(kj)) continue;
            if (kj == missed_key) return std::nullopt;  // it reached the missed collective: not its fault
            Departure d{Verdict::Cause::other_collective, position_of(*fr.calls[j], rank)};
            if (after.count(kj)) {
                d.cause = Verdict::Cause::skipped;
                for (std::size_t l = j + 1; l < fr.calls.size(); ++l)
                    if (key(*fr.calls[l]) == missed_key) d.cause = Verdict::Cause::out_of_order;
            }
            // where it stands now: its blocked collective
            if (fr.blocked) d.instead = position_of(*fr.calls[*fr.blocked], rank);
            return d;
        }
        return std::nullopt;
    }

    // How many ranks called the collective of `p` (on their own group of its dim): how common its place in the
    // order is. In a cycle, the collective most ranks call is the one a rank left the common order at.
    [[nodiscard]] std::size_t popularity(const Position& p) {
        const auto cached = popularity_.find({p.dim, p.seq, p.op});
        if (cached != popularity_.end()) return cached->second;
        std::vector<unsigned char> reached(ranks_.size(), 0);
        parallel_for(ranks_.size(), parallel_threads(ranks_.size(), 8),
                     [&](std::size_t i) { reached[i] = reached_call(i, p) ? 1 : 0; });
        return popularity_[{p.dim, p.seq, p.op}] =
                   static_cast<std::size_t>(std::count(reached.begin(), reached.end(), 1));
    }

private:
    // Whether rank i reached p's call (those NCCL only enqueued do not count). Its calls are read newest first: a
    // rank's group has rising seqs in call order, so where p's dim is one group of the rank's, a call of that group
    // below p's seq means the rank did not reach it.
    [[nodiscard]] bool reached_call(std::size_t i, const Position& p) const {
        const FrRank& fr = *ranks_[i];
        const auto dim_groups = std::count_if(noted_[i].begin(), noted_[i].end(), [&](const FrGroupName* name) {
            return group_of_.at(name)->order_dim == p.dim;
        });
        const bool one_group = !p.dim.empty() && dim_groups == 1;
        const std::size_t end = fr.blocked ? *fr.blocked + 1 : fr.calls.size();
        for (std::size_t c = end; c-- > 0;) {
            const FrEntry& e = *fr.calls[c];
            if (!p.dim.empty() && group_of_.at(e.group)->order_dim != p.dim) continue;
            if (e.collective_seq_id == p.seq && e.collective() == p.op) return true;
            if (one_group && e.collective_seq_id < p.seq) return false;
        }
        return false;
    }

    // One rank's calls in the order it called them, where it is blocked and how far it reached on each group; the
    // groups its entries name, each once, in the order they first appear (a dump's entries point at a handful).
    static std::vector<const FrGroupName*> read_calls(FrRank& r) {
        std::vector<const FrGroupName*> noted;
        for (const auto& e : r.dump->entries) {
            if (std::find(noted.begin(), noted.end(), e.group) == noted.end()) noted.push_back(e.group);
            if (!e.is_p2p && e.collective_seq_id > 0) r.calls.push_back(&e);
        }
        const auto by_record = [](const FrEntry* a, const FrEntry* b) { return a->record_id < b->record_id; };
        if (!std::is_sorted(r.calls.begin(), r.calls.end(), by_record))  // a ring buffer's dump mostly is
            std::stable_sort(r.calls.begin(), r.calls.end(), by_record);
        const bool states =
            std::any_of(r.calls.begin(), r.calls.end(), [](const FrEntry* e) { return e->state() != "scheduled"; });
        if (!r.calls.empty()) r.blocked = r.calls.size() - 1;
        // A dump's states are interned: its "completed" is one text, compared once.
        const std::string* completed = nullptr;
        if (states)
            for (std::size_t i = 0; i < r.calls.size(); ++i) {
                const std::string* state = r.calls[i]->state_text;
                if (state == completed) continue;
                if (*state != "completed") {
                    r.blocked = i;
                    break;
                }
                completed = state;
            }
        std::vector<std::pair<const FrGroupName*, std::int64_t>> reached;  // by group, few of them
        for (std::size_t i = 0; i < r.calls.size() && (!r.blocked || i <= *r.blocked); ++i) {
            const FrEntry& e = *r.calls[i];
            auto it = std::find_if(reached.begin(), reached.end(), [&](const auto& g) { return g.first == e.group; });
            if (it == reached.end()) it = reached.insert(reached.end(), {e.group, e.collective_seq_id});
            it->second = std::max(it->second, e.collective_seq_id);
        }
        for (const auto& [group, seq] : reached) {
            auto& highest = r.reached[group->name];
            highest = std::max(highest, seq);
        }
        return noted;
    }

    std::map<std::int64_t, FrRank> by_rank_;
    std::vector<const FrRank*> ranks_;                    // by_rank_'s, in its order
    std::vector<std::vector<const FrGroupName*>> noted_;  // the groups each of ranks_ names
    std::map<std::string, FrGroup> groups_;
    std::unordered_map<const FrGroupName*, const FrGroup*> group_of_;  // every group an entry names
    std::map<std::pair<std::string, std::int64_t>, std::vector<std::int64_t>> behind_;
    std::map<Key, std::size_t> popularity_;
};

// The wait-for graph: ranks 0..world-1 are nodes 0..world-1; each place where ranks wait (a group's collective) is
// one node after them, with an edge from each rank blocked in it and an edge to each member it waits on.
struct Graph {
    std::int64_t world = 0;
    std::vector<std::vector<std::size_t>> out;
    std::vector<WaitingGroup> waits;  // node world + i
    std::map<std::tuple<std::string, std::string, std::int64_t, std::string>, std::size_t> wait_index;

    void add(const Position& p) {
        const auto k = std::tuple{p.source, p.key, p.seq, p.op};
        auto [it, added] = wait_index.emplace(k, waits.size());
        if (added) {
            waits.push_back({p, {}, p.waits_on});
            out.emplace_back();
            for (const std::int64_t m : p.waits_on)
                if (m >= 0 && m < world) out.back().push_back(static_cast<std::size_t>(m));
        }
        WaitingGroup& w = waits[it->second];
        if (std::find(w.waiting.begin(), w.waiting.end(), p.rank) == w.waiting.end()) w.waiting.push_back(p.rank);
        for (const std::int64_t m : p.waits_on)
            if (std::find(w.waits_on.begin(), w.waits_on.end(), m) == w.waits_on.end()) {
                w.waits_on.push_back(m);
                if (m >= 0 && m < world) out[static_cast<std::size_t>(world) + it->second].push_back(m);
            }
        out[static_cast<std::size_t>(p.rank)].push_back(static_cast<std::size_t>(world) + it->second);
    }

    // Tarjan's strongly connected components, without recursion; component ids in reverse topological order.
    [[nodiscard]] std::vector<std::size_t> components(std::size_t& count) const {
        const std::size_t n = out.size();
        std::vector<std::size_t> index(n, SIZE_MAX), low(n, 0), comp(n, SIZE_MAX);
        std::vector<bool> on(n, false);
        std::vector<std::size_t> stack;
        std::vector<std::pair<std::size_t, std::size_t>> frames;
        std::size_t next = 0;
        count = 0;
        for (std::size_t s = 0; s < n; ++s) {
            if (index[s] != SIZE_MAX) continue;
            frames.push_back({s, 0});
            index[s] = low[s] = next++;
            stack.push_back(s);
            on[s] = true;
            while (!frames.empty()) {
                auto& [v, i] = frames.back();
                if (i < out[v].size()) {
                    const std::size_t w = out[v][i++];
                    if (index[w] == SIZE_MAX) {
                        index[w] = low[w] = next++;
                        stack.push_back(w);
                        on[w] = true;
                        frames.push_back({w, 0});
                    } else if (on[w])
                        low[v] = std::min(low[v], index[w]);
                    continue;
                }
                if (low[v] == index[v]) {
                    for (;;) {
                        const std::size_t w = stack.back();
                        stack.pop_back();
                        on[w] = false;
                        comp[w] = count;
                        if (w == v) break;
                    }
                    ++count;
                }
                const std::size_t done = v;
                frames.pop_back();
                if (!frames.empty()) low[frames.back().first] = std::min(low[frames.back().first], low[done]);
            }
        }
        return comp;
    }
};

std::string join_sources(const std::set<std::string>& sources) {
    std::string out;
    for (const auto& s : sources) out += (out.empty() ? "" : ", ") + s;
    return out;
}

// The rank(s) a sentence names: "rank 13", "ranks 0-2".
std::string who(const std::vector<std::int64_t>& ranks) {
    return ranks_words(ranks);
}
}  // namespace

// "py-spy dump --pid 41013 on node3"; without a pid, what is known.
std::string process_text(const Diagnosis& d, std::int64_t rank) {
    const auto it = std::lower_bound(d.ranks.begin(), d.ranks.end(), rank,
                                     [](const RecordsRank& r, std::int64_t v) { return r.rank < v; });
    if (it == d.ranks.end() || it->rank != rank || (!it->pid && !it->host))
        return "py-spy dump --pid on rank " + std::to_string(rank) +
               "'s host: no record gives its host and pid, the launcher's log maps ranks to hosts";
    if (!it->pid)
        return "py-spy dump --pid on " + *it->host + ": no record gives rank " + std::to_string(rank) + "'s pid";
    std::string out = "py-spy dump --pid " + std::to_string(*it->pid);
    if (it->host) out += " on " + *it->host;
    return out;
}

// A source's Position as the hang map shows it.
HangPosition hang_position(const Position& p, HangStanding standing) {
    HangPosition h;
    h.standing = standing;
    h.dim = p.dim;
    h.group = p.dim.empty() ? -1 : p.index;
    h.seq = p.seq;
    h.op = p.op;
    h.label = p.label;
    return h;
}

// Where every rank of the world stands (Diagnosis::positions): RAS's dead first, then the collective it waits in
// (Flight Recorder's before the NCCL log's and RAS's), then its last completed collective; a rank no record names is
// no_record. A rank named only by records that say neither (an NCCL init line) has no position.
void place_ranks(Context& context, const FrView& fr, const std::vector<std::vector<Position>>& positions,
                 const std::set<std::int64_t>& recorded) {
    Diagnosis& d = context.out;
    d.positions.clear();
    const bool any = std::any_of(positions.begin(), positions.end(), [](const auto& l) { return !l.empty(); });
    if (!any && context.unreachable.empty()) return;
    for (std::size_t r = 0; r < positions.size(); ++r) {
        const auto rank = static_cast<std::int64_t>(r);
        const auto& list = positions[r];
        std::optional<HangPosition> h;
        const auto blocked = std::find_if(list.begin(), list.end(), [](const Position& p) {
            return p.state == Position::State::blocked && !p.waits_on.empty();
        });
        const auto completed = std::find_if(list.begin(), list.end(),
                                            [](const Position& p) { return p.state == Position::State::completed; });
        if (context.unreachable.count(rank)) {
            h = HangPosition{};
            h->standing = HangStanding::dead;
        } else if (blocked != list.end()) {
            h = hang_position(*blocked, HangStanding::waiting);
        } else if (completed != list.end()) {
            h = hang_position(*completed, HangStanding::outside_collectives);
        } else if (!recorded.count(rank) && !fr.has(rank)) {
            h = HangPosition{};
            h->standing = HangStanding::no_record;
        }
        if (!h) continue;
        if (fr.has(rank)) h->last = fr.last_calls(rank, blocked == list.end() || blocked->source != "Flight Recorder");
        d.positions.emplace_back(rank, std::move(*h));
    }
}

namespace {
// --- index: the world, every rank's positions, the wait-for graph ---

// The largest rank any record or wait names, and at least the diagnosis's world.
std::int64_t verdict_world(const Context& context) {
    std::int64_t world = context.world;
    for (const auto& r : context.out.ranks) world = std::max(world, r.rank + 1);
    for (const auto& p : context.positions) {
        world = std::max(world, p.rank + 1);
        for (const std::int64_t m : p.waits_on) world = std::max(world, m + 1);
    }
    return world;
}

// Every rank's positions: Flight Recorder's first, then the NCCL log's and RAS's blocked ones.
std::vector<std::vector<Position>> positions_by_rank(const Context& context, FrView& fr, std::int64_t world) {
    std::vector<std::vector<Position>> positions(static_cast<std::size_t>(world));
    for (const auto& [rank, r] : fr.ranks())
        if (rank < world) positions[static_cast<std::size_t>(rank)].push_back(fr.position(rank));
    for (const auto& p : context.positions)
        if (p.rank >= 0 && p.rank < world) positions[static_cast<std::size_t>(p.rank)].push_back(p);
    return positions;
}

// Ranks some record names: a dump, an NCCL line, a RAS entry.
std::set<std::int64_t> recorded_ranks(const Context& context) {
    std::set<std::int64_t> recorded;
    for (const auto& r : context.out.ranks) recorded.insert(r.rank);
    for (const auto& p : context.positions) recorded.insert(p.rank);
    return recorded;
}

// The blocked positions as the wait-for graph; false when no rank is blocked.
bool build_graph(const std::vector<std::vector<Position>>& positions, Graph& graph) {
    graph.out.assign(static_cast<std::size_t>(graph.world), {});
    bool any_blocked = false;
    for (const auto& list : positions)
        for (const auto& p : list)
            if (p.state == Position::State::blocked && !p.waits_on.empty()) {
                graph.add(p);
                any_blocked = true;
            }
    if (!any_blocked) return false;
    for (auto& w : graph.waits) {
        std::sort(w.waiting.begin(), w.waiting.end());
        std::sort(w.waits_on.begin(), w.waits_on.end());
    }
    return true;
}

// The ends of the chains: the components with no edge out of them that a wait reaches (component -> its nodes),
// and the graph's edges reversed, to walk back from an end to every wait that leads to it.
struct ChainEnds {
    std::map<std::size_t, std::vector<std::size_t>> ends;
    std::vector<std::vector<std::size_t>> into;
};

ChainEnds chain_ends(const Graph& graph) {
    const auto world = static_cast<std::size_t>(graph.world);
    std::size_t count = 0;
    const auto comp = graph.components(count);
    const std::size_t n = graph.out.size();
    std::vector<bool> leaves(count, false);  // a component with an edge out of it is no end
    for (std::size_t v = 0; v < n; ++v)
        for (const std::size_t w : graph.out[v])
            if (comp[w] != comp[v]) leaves[comp[v]] = true;
    // The ends reachable from a wait.
    std::vector<bool> reached(n, false);
    std::vector<std::size_t> todo;
    for (std::size_t i = 0; i < graph.waits.size(); ++i) {
        reached[world + i] = true;
        todo.push_back(world + i);
    }
    while (!todo.empty()) {
        const std::size_t v = todo.back();
        todo.pop_back();
        for (const std::size_t w : graph.out[v])
            if (!reached[w]) {
                reached[w] = true;
                todo.push_back(w);
            }
    }
    ChainEnds out;
    for (std::size_t v = 0; v < n; ++v)
        if (reached[v] && !leaves[comp[v]]) out.ends[comp[v]].push_back(v);
    out.into.resize(n);
    for (std::size_t v = 0; v < n; ++v)
        for (const std::size_t w : graph.out[v]) out.into[w].push_back(v);
    return out;
}

// --- root cause: one verdict per end ---

// What the root-cause stage reads.
struct WaitFor {
    const Context& context;
    FrView& fr;  // its popularity() caches
    const std::vector<std::vector<Position>>& positions;
    const std::set<std::int64_t>& recorded;
    const Graph& graph;
};

// An end that is one rank waiting on nobody: dead (RAS cannot reach it), without a record, or outside collectives
// (where its last completed collective is).
Verdict lone_rank_verdict(const WaitFor& in, std::int64_t r) {
    Verdict v;
    v.ranks = {r};
    if (const auto u = in.context.unreachable.find(r); u != in.context.unreachable.end()) {
        v.cause = Verdict::Cause::dead;
        v.how = u->second.first;
        v.sources.push_back(u->second.second);
    } else if (!in.recorded.count(r))
        v.cause = Verdict::Cause::no_record;
    else {
        v.cause = Verdict::Cause::outside;
        for (const auto& p : in.positions[static_cast<std::size_t>(r)])
            if (p.state == Position::State::completed && !p.op.empty()) {
                v.where = p;
                break;
            }
        for (const auto& p : in.positions[static_cast<std::size_t>(r)])
            v.sources.insert(v.sources.end(), p.files.begin(), p.files.end());
    }
    return v;
}

// A cycle: the member whose records went past a collective its peers in the cycle wait in. One such departure is
// the verdict; none or several, the ranks wait on each other.
Verdict cycle_verdict(const WaitFor& in, const std::vector<std::int64_t>& ranks,
                      const std::vector<std::size_t>& waits) {
    const auto world = static_cast<std::size_t>(in.graph.world);
    const std::set<std::int64_t> cycle(ranks.begin(), ranks.end());
    std::map<std::tuple<int, std::string, std::int64_t, std::string>, std::vector<std::int64_t>> culprits;
    std::map<std::int64_t, std::pair<Position, std::optional<Position>>> where;  // rank -> missed, instead
    std::size_t most = 0;  // the most ranks that called one of the cycle's collectives
    for (const std::size_t wnode : waits) {
        const WaitingGroup& w = in.graph.waits[wnode - world];
        if (w.at.source == "Flight Recorder" && w.at.op != "creation") most = std::max(most, in.fr.popularity(w.at));
    }
    for (const std::size_t wnode : waits) {
        const WaitingGroup& w = in.graph.waits[wnode - world];
        if (w.at.source == "Flight Recorder" && w.at.op != "creation" && in.fr.popularity(w.at) < most) continue;
        for (const std::int64_t b : w.waits_on) {
            if (!cycle.count(b) || where.count(b)) continue;
            std::optional<std::pair<Verdict::Cause, std::optional<Position>>> departed;
            if (w.at.op == "creation")
                departed = {{Verdict::Cause::skipped, std::nullopt}};
            else if (w.at.source == "Flight Recorder")
                if (const auto dep = in.fr.departure(b, w.at, cycle)) departed = {{dep->cause, dep->instead}};
            if (!departed) continue;
            culprits[{static_cast<int>(departed->first), w.at.key, w.at.seq, w.at.op}].push_back(b);
            where.emplace(b, std::pair{w.at, departed->second});
        }
    }
    Verdict v;
    if (culprits.size() == 1) {
        const auto& [k, who_left] = *culprits.begin();
        v.cause = static_cast<Verdict::Cause>(std::get<0>(k));
        v.ranks = who_left;
        std::sort(v.ranks.begin(), v.ranks.end());
        v.where = where.at(v.ranks.front()).first;
        v.instead = where.at(v.ranks.front()).second;
        if (v.instead) v.instead->rank = v.ranks.front();
    } else {
        v.cause = Verdict::Cause::wait_each_other;
        v.ranks = ranks;
    }
    return v;
}

// Every wait node that leads to an end.
std::set<std::size_t> waits_into(const std::vector<std::size_t>& nodes, const ChainEnds& chains, std::size_t world) {
    std::set<std::size_t> waiting;
    std::vector<std::size_t> back(nodes.begin(), nodes.end());
    std::set<std::size_t> seen(nodes.begin(), nodes.end());
    while (!back.empty()) {
        const std::size_t x = back.back();
        back.pop_back();
        if (x >= world) waiting.insert(x);
        for (const std::size_t y : chains.into[x])
            if (seen.insert(y).second) back.push_back(y);
    }
    return waiting;
}

// Ends with the same cause and place are one verdict of several ranks; a cycle's, or a departure's, only with the
// same ranks too.
std::string verdict_key(const Verdict& v) {
    std::string key = std::string(to_string(v.cause));
    if (v.where)
        key += "|" + v.where->source + "|" + v.where->key + "|" + std::to_string(v.where->seq) + "|" + v.where->op;
    if (v.cause == Verdict::Cause::wait_each_other || v.cause == Verdict::Cause::skipped ||
        v.cause == Verdict::Cause::out_of_order || v.cause == Verdict::Cause::other_collective)
        for (const auto r : v.ranks) key += "|" + std::to_string(r);
    return key;
}

// One verdict per end, merged by verdict_key, each with the groups that wait on it (the group it left first, then
// the others by dim and index); the verdict most groups wait on first.
std::vector<Verdict> judge_ends(const WaitFor& in, const ChainEnds& chains) {
    const auto world = static_cast<std::size_t>(in.graph.world);
    std::map<std::string, Verdict> found;
    std::map<std::string, std::set<std::size_t>> found_waits;
    for (const auto& [c, nodes] : chains.ends) {
        std::vector<std::int64_t> ranks;
        std::vector<std::size_t> waits;
        for (const std::size_t v : nodes)
            (v < world ? ranks.push_back(static_cast<std::int64_t>(v)) : waits.push_back(v));
        const Verdict v =
            ranks.size() == 1 && waits.empty() ? lone_rank_verdict(in, ranks.front()) : cycle_verdict(in, ranks, waits);
        const std::set<std::size_t> waiting = waits_into(nodes, chains, world);
        const std::string key = verdict_key(v);
        auto [it, added] = found.emplace(key, v);
        if (!added) {
            it->second.ranks.insert(it->second.ranks.end(), v.ranks.begin(), v.ranks.end());
            it->second.sources.insert(it->second.sources.end(), v.sources.begin(), v.sources.end());
        }
        found_waits[key].insert(waiting.begin(), waiting.end());
    }
    std::vector<Verdict> verdicts;
    for (auto& found_entry : found) {
        // Named, not bound: clang 14 (the fuzz and sanitizer trees) cannot capture a structured binding.
        const auto& k = found_entry.first;
        auto& v = found_entry.second;
        std::sort(v.ranks.begin(), v.ranks.end());
        v.ranks.erase(std::unique(v.ranks.begin(), v.ranks.end()), v.ranks.end());
        for (const std::size_t x : found_waits[k]) v.waiting.push_back(in.graph.waits[x - world]);
        // the group it left first, then the others by dim and index
        std::sort(v.waiting.begin(), v.waiting.end(), [&](const WaitingGroup& a, const WaitingGroup& b) {
            const bool fa = v.where && a.at.key == v.where->key, fb = v.where && b.at.key == v.where->key;
            if (fa != fb) return fa;
            return std::tie(a.at.mesh, a.at.dim, a.at.index, a.at.key, a.at.seq) <
                   std::tie(b.at.mesh, b.at.dim, b.at.index, b.at.key, b.at.seq);
        });
        verdicts.push_back(std::move(v));
    }
    std::stable_sort(verdicts.begin(), verdicts.end(), [](const Verdict& a, const Verdict& b) {
        if (a.waiting.size() != b.waiting.size()) return a.waiting.size() > b.waiting.size();
        return a.ranks < b.ranks;
    });
    return verdicts;
}

// --- report: each verdict's sentence, finding and fix ---

std::string verdict_sentence(const Verdict& v) {
    const std::string subject = who(v.ranks);
    const bool one = v.ranks.size() == 1;
    switch (v.cause) {
        case Verdict::Cause::skipped:
            return v.where && v.where->op == "creation" ? subject + " went on without creating the " + v.where->label
                                                        : subject + " skipped " + call_text(*v.where);
        case Verdict::Cause::out_of_order:
            return subject + " called " + call_text(*v.instead) + " before " + call_text(*v.where) + " (out of order)";
        case Verdict::Cause::other_collective:
            return subject + " called " + (v.instead ? call_text(*v.instead) : "another collective") + " where " +
                   (one ? "its" : "their") + " peers call " + call_text(*v.where);
        case Verdict::Cause::wait_each_other:
            return subject +
                   " wait on each other in different groups: their collectives are called in "
                   "different orders";
        case Verdict::Cause::no_record:
            return subject +
                   " left no record (no Flight Recorder dump, NCCL line or RAS entry): " + (one ? "it" : "they") +
                   " died or hang" + (one ? "s" : "") + " outside any collective";
        case Verdict::Cause::dead: return subject + " " + v.how;
        case Verdict::Cause::outside:
            return subject + (one ? " hangs" : " hang") + " outside collectives (compute, the data loader, host code)" +
                   (v.where ? ": " + std::string(one ? "its" : "their") + " last collective, " + call_text(*v.where) +
                                  ", completed on every member"
                            : ": nothing " + std::string(one ? "it" : "they") + " recorded is pending");
    }
    return {};
}

// What to do, with where to look at each of the verdict's ranks (at most 8).
std::string verdict_fix(const Diagnosis& d, const Verdict& v) {
    const std::string subject = who(v.ranks);
    const bool one = v.ranks.size() == 1;
    std::string look;
    for (std::size_t i = 0; i < v.ranks.size() && i < 8; ++i) look += (i ? "; " : "") + process_text(d, v.ranks[i]);
    if (v.ranks.size() > 8) look += "; and " + std::to_string(v.ranks.size() - 8) + " more";
    switch (v.cause) {
        case Verdict::Cause::skipped:
        case Verdict::Cause::out_of_order:
        case Verdict::Cause::other_collective:
            return "Find why " + subject + " did not call " + call_text(*v.where) + " where " +
                   (one ? "its" : "their") +
                   " peers did (a data-dependent branch, a caught exception, a rank-dependent condition): every "
                   "rank must call a group's collectives in the same order. Where " +
                   (one ? "it is" : "they are") + " now: " + look + ".";
        case Verdict::Cause::wait_each_other:
            return "Make " + subject +
                   " call these groups' collectives in one order (the same code path on every rank); each "
                   "one's stack: " +
                   look + ".";
        case Verdict::Cause::no_record:
            return "Check " + subject + "'s process" + (one ? "" : "es") +
                   ": whether it died (the scheduler's log, dmesg for the OOM killer, its stderr) or hangs (" + look +
                   "); every group listed waits for " + (one ? "it" : "them") + ".";
        case Verdict::Cause::dead:
            return "Check " + subject + "'s process and host (" + look +
                   "; the scheduler's log, dmesg, the NIC): every group listed waits for " + (one ? "it" : "them") +
                   ".";
        case Verdict::Cause::outside:
            return "Look at what " + subject + (one ? " does" : " do") + " after " + (one ? "its" : "their") +
                   " last collective, compute, the data loader or host code that does not return (" + look +
                   "); every group listed waits for " + (one ? "it" : "them") + ".";
    }
    return {};
}

// The verdict's finding: its sentence, how many of the stuck groups wait on it, the first 8 of them, the sources.
Finding verdict_finding(const Diagnosis& d, const Verdict& v, std::size_t all_waits) {
    const bool one = v.ranks.size() == 1;
    std::set<std::string> source_names;
    for (const auto& w : v.waiting) source_names.insert(w.at.source);
    if (v.cause == Verdict::Cause::dead) source_names.insert("NCCL RAS");
    Finding f;
    f.kind = FindingKind::verdict;
    f.id = v.id;
    f.ranks = v.ranks;
    f.message = v.sentence;
    if (v.instead && v.cause == Verdict::Cause::skipped) f.message += " and went on to " + call_text(*v.instead);
    const bool every = v.waiting.size() == all_waits;
    const bool left = v.cause == Verdict::Cause::skipped || v.cause == Verdict::Cause::out_of_order ||
                      v.cause == Verdict::Cause::other_collective;
    if (every && left && v.waiting.size() > 1)
        f.message += "; every other stuck group waits on " + std::string(one ? "it" : "them");
    else if (every && !left)
        f.message += "; every stuck group waits on " + std::string(one ? "it" : "them");
    f.message += ". " + std::to_string(v.waiting.size()) + (v.waiting.size() == 1 ? " group waits" : " groups wait") +
                 " on " + (one ? "it" : "them") + ": ";
    for (std::size_t i = 0; i < v.waiting.size() && i < 8; ++i)
        f.message += (i ? ", " : "") + call_text(v.waiting[i].at) + " (" + ranks_words(v.waiting[i].waiting) + ")";
    if (v.waiting.size() > 8) f.message += " and " + std::to_string(v.waiting.size() - 8) + " more";
    f.message += " (" + join_sources(source_names) + ")";
    f.fix = verdict_fix(d, v);
    return f;
}

// Each verdict named: its id, its first rank's host and pid, its sentence, its records (those of the waits, at most
// 8), and its finding added.
void report_verdicts(Diagnosis& d, std::vector<Verdict>& verdicts, std::size_t all_waits) {
    for (Verdict& v : verdicts) {
        std::string ids;
        for (std::size_t i = 0; i < v.ranks.size(); ++i) ids += (i ? "," : "") + std::to_string(v.ranks[i]);
        v.id = "verdict/" + ids;
        const std::int64_t first = v.ranks.front();
        if (const auto it = std::lower_bound(d.ranks.begin(), d.ranks.end(), first,
                                             [](const RecordsRank& r, std::int64_t x) { return r.rank < x; });
            it != d.ranks.end() && it->rank == first) {
            v.host = it->host;
            v.pid = it->pid;
        }
        v.sentence = verdict_sentence(v);
        std::set<std::string> files(v.sources.begin(), v.sources.end());
        for (const auto& w : v.waiting)
            for (const auto& f : w.at.files)
                if (files.size() < 8) files.insert(f);
        v.sources.assign(files.begin(), files.end());
        d.findings.push_back({verdict_finding(d, v, all_waits), v.sources, {}});
    }
}

// Fold the findings each verdict explains under it: a group that waits on it, the rank itself by another source.
void fold_consequences(Diagnosis& d, const std::vector<Verdict>& verdicts) {
    for (auto& sf : d.findings) {
        if (sf.finding.kind == FindingKind::verdict) continue;
        const std::string& id = sf.finding.id;
        const std::size_t slash = id.find('/');
        const std::string key = slash == std::string::npos ? std::string() : id.substr(slash + 1);
        for (const Verdict& v : verdicts) {
            const bool group =
                std::any_of(v.waiting.begin(), v.waiting.end(), [&](const WaitingGroup& w) { return w.at.key == key; });
            const bool same_ranks = !sf.finding.ranks.empty() && sf.finding.ranks == v.ranks;
            if (group || same_ranks) {
                sf.consequence_of = v.id;
                break;
            }
        }
    }
}

// The hang map marks each verdict's ranks.
void mark_root_causes(Diagnosis& d, const std::vector<Verdict>& verdicts) {
    for (const Verdict& v : verdicts)
        for (const std::int64_t r : v.ranks) {
            const auto it = std::lower_bound(d.positions.begin(), d.positions.end(), r,
                                             [](const auto& p, std::int64_t x) { return p.first < x; });
            if (it != d.positions.end() && it->first == r) it->second.root_cause = true;
        }
}
}  // namespace

// The stages: index every rank's positions and place each rank on the hang map, build the wait-for graph, find the
// ends of its chains, judge each end (the root cause), then report the verdicts and fold what they explain.
void find_verdicts(Context& context) {
    Diagnosis& d = context.out;
    FrView fr(context);
    const std::int64_t world = verdict_world(context);
    if (world <= 0 || world > (1 << 22)) return;
    const auto positions = positions_by_rank(context, fr, world);
    const auto recorded = recorded_ranks(context);
    if (world <= static_cast<std::int64_t>(RecordsLimits{}.max_ranks)) place_ranks(context, fr, positions, recorded);
    Graph graph;
    graph.world = world;
    if (!build_graph(positions, graph)) return;
    const ChainEnds chains = chain_ends(graph);
    std::vector<Verdict> verdicts = judge_ends({context, fr, positions, recorded, graph}, chains);
    report_verdicts(d, verdicts, graph.waits.size());
    fold_consequences(d, verdicts);
    mark_root_causes(d, verdicts);
    d.verdicts = std::move(verdicts);
}

}  // namespace detail
}  // namespace meshscope::records
