#include "meshscope/monitor/finding_text.h"

#include <algorithm>
#include <cstdio>

namespace meshscope::monitor {

namespace {
constexpr std::string_view nccl_hang = "; NCCL would hang creating this group";

std::string first_line(const std::string& text, std::size_t max_length = 200) {
    std::string line = text.substr(0, text.find('\n'));
    if (line.size() > max_length) line = line.substr(0, max_length) + "...";
    return line;
}

// "(16, 1, 2)" -> {16, 1, 2}
std::optional<std::vector<std::int64_t>> parse_tuple(const std::string& text) {
    if (text.size() < 2 || text.front() != '(' || text.back() != ')') return std::nullopt;
    std::vector<std::int64_t> values;
    std::size_t pos = 1;
    while (pos < text.size() - 1) {
        while (text[pos] == ' ') ++pos;
        std::size_t used = 0;
        try {
            values.push_back(std::stoll(text.substr(pos), &used));
        } catch (const std::exception&) {
            return std::nullopt;
        }
        pos += used;
        while (pos < text.size() - 1 && (text[pos] == ',' || text[pos] == ' ')) ++pos;
    }
    return values;
}

std::string aspect_subject(const Aspect& aspect) {
    if (aspect.name == "topology") return "(dp, cp, ep) = ";
    if (aspect.name == "world_size") return "world_size ";
    return "mesh \"" + aspect.name.substr(aspect.name.find('/') + 1) + "\" as ";
}
}  // namespace

std::string Identity::text() const {
    std::string out = host ? *host : "unknown host";
    if (pid) out += " pid " + std::to_string(*pid);
    return out;
}

std::string ranks_text(std::span<const std::int64_t> ranks) {
    std::string out = ranks.size() == 1 ? "rank " : "ranks ";
    std::size_t items = 0;
    std::size_t i = 0;
    while (i < ranks.size()) {
        if (items == 8) {
            out += ", ... (" + std::to_string(ranks.size()) + " ranks)";
            return out;
        }
        std::size_t j = i;
        while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
        if (items) out += ", ";
        out += std::to_string(ranks[i]);
        // Appended in two steps: GCC 12 at -O3 warns falsely (-Wrestrict) on "-" + std::to_string(...).
        if (j > i) {
            out += j > i + 1 ? "-" : ", ";
            out += std::to_string(ranks[j]);
        }
        ++items;
        i = j + 1;
    }
    return out;
}

std::string seconds_text(double seconds) {
    char buffer[32];
    if (seconds >= 100)
        std::snprintf(buffer, sizeof buffer, "%.0f s", seconds);
    else if (seconds >= 1)
        std::snprintf(buffer, sizeof buffer, "%.1f s", seconds);
    else
        std::snprintf(buffer, sizeof buffer, "%.2f s", seconds);
    return buffer;
}

std::optional<std::pair<std::string, std::string>> parse_reinit_message(std::string_view message) {
    constexpr std::string_view head = "FSDPTurbo parallel state is already initialized with ";
    constexpr std::string_view middle = ", got ";
    const auto start = message.find(head);
    if (start == std::string_view::npos) return std::nullopt;
    const auto rest = message.substr(start + head.size());
    // The tuples hold no ", got "; the message ends with ")." (the text may continue after it).
    const auto split = rest.find(middle);
    if (split == std::string_view::npos) return std::nullopt;
    const auto current = rest.substr(0, split);
    const auto after = rest.substr(split + middle.size());
    const auto end = after.find(").");
    if (current.empty() || end == std::string_view::npos) return std::nullopt;
    return std::pair{std::string(current), std::string(after.substr(0, end + 1))};
}

Finding topology_mismatch(const Aspect& aspect, const std::string& value, std::vector<std::int64_t> ranks) {
    Finding f;
    f.kind = FindingKind::topology_mismatch;
    f.id = "topology_mismatch/" + aspect.name + "/" + value;
    const std::string subject = aspect_subject(aspect);
    f.message = ranks_text(ranks) + (ranks.size() == 1 ? " reports " : " report ") + subject + value + ", but ";
    switch (aspect.basis) {
        case Aspect::Basis::plan: f.message += "the declared plan has " + aspect.reference; break;
        case Aspect::Basis::tie: {
            const auto lowest = monitor::lowest(aspect.holders.at(aspect.reference));
            f.message += "the ranks are split evenly and rank " + std::to_string(lowest) + "'s " + aspect.reference +
                         " is taken as the reference";
            break;
        }
        default: f.message += "most ranks report " + aspect.reference;
    }
    const std::string expected = aspect.basis == Aspect::Basis::plan ? "the declared plan" : "the rest of the job";
    if (aspect.name == "topology")
        f.fix =
            "Relaunch these ranks with the same dp, cp and ep as " + expected +
            " (the same dist_config ep_size and cp_size everywhere); ranks that build different meshes hang in NCCL.";
    else if (aspect.name == "world_size")
        f.fix = "Give every rank the same world size as " + expected +
                " (torchrun --nnodes and --nproc-per-node, Slurm --ntasks) and relaunch.";
    else
        f.fix = "Build this mesh with the same dim names and shape as " + expected +
                " on every rank and relaunch; ranks that build different meshes hang in NCCL.";
    f.ranks = std::move(ranks);
    return f;
}

Finding group_disagreement(const GroupEvidence& e) {
    Finding f;
    f.kind = FindingKind::group_disagreement;
    f.id = "group_disagreement/" + e.dim + "/" + std::to_string(e.rank);
    f.ranks = {e.rank};
    const std::string who = "rank " + std::to_string(e.rank);
    f.message = who + " reports its " + e.dim + " group as " + e.reported.text();
    if (!e.reported.contains(e.rank)) {
        f.message += ", which does not contain " + who;
    } else if (e.expected) {
        f.message += ", but " + e.topology_text.value_or("?") + " puts it in " + e.expected->text();
        if (e.peer) f.message += ", and rank " + std::to_string(e.peer->first) + " reports " + e.peer->second.text();
    } else if (e.peer) {
        f.message += ", but rank " + std::to_string(e.peer->first) + " reports " + e.peer->second.text();
        f.ranks = {std::min(e.rank, e.peer->first), std::max(e.rank, e.peer->first)};
    }
    f.message += nccl_hang;
    f.fix = "Build " + who +
            "'s meshes with the same layout code and topology as its peers (the same dist_config and cp_size on every "
            "rank) and relaunch.";
    return f;
}

Finding creation_order_mismatch(const CreationEvidence& e) {
    Finding f;
    f.kind = FindingKind::creation_order_mismatch;
    f.id = "creation_order_mismatch/" + e.dim;
    f.ranks = e.faulty;
    f.message = ranks_text(e.faulty) + " created the " + e.dim +
                " groups in a different order from the rest of the job: " +
                (e.faulty.size() == 1 ? std::string("it") : "rank " + std::to_string(e.rank)) + " created " +
                e.group.text() + " at creation index " + std::to_string(e.index) + ", where " +
                ranks_text(e.reference_ranks) + " created " + e.reference.text();
    if (!e.members_elsewhere.empty())
        f.message += ", and " + ranks_text(e.members_elsewhere) + " created it at " + std::to_string(e.elsewhere_index);
    f.message += "; NCCL would hang at the first collective on these groups";
    f.fix =
        "Run the same PyTorch version on every rank (one container image or environment for the whole job) and "
        "relaunch: PyTorch 2.8 and 2.9 create a mesh's groups in different orders, and ranks that create them in "
        "different orders hang in NCCL.";
    return f;
}

Finding missing_rank(std::vector<std::int64_t> ranks, std::int64_t world_size, double missing_after,
                     std::int64_t missing) {
    Finding f;
    f.kind = FindingKind::missing_rank;
    f.id = "missing_rank";
    const auto named = static_cast<std::int64_t>(ranks.size());
    if (missing < named) missing = named;
    f.message = std::to_string(missing) + " of " + std::to_string(world_size) + " ranks never reported within " +
                seconds_text(missing_after) + " of the job's first event: " + ranks_text(ranks);
    if (missing > named) f.message += " and " + std::to_string(missing - named) + " more";
    f.fix =
        "Check that these ranks' processes were launched (launcher and scheduler logs on their hosts) and can reach "
        "the collector; the job's first collective waits for them.";
    f.ranks = std::move(ranks);
    return f;
}

Finding duplicate_rank(std::int64_t rank, const std::vector<Identity>& identities) {
    Finding f;
    f.kind = FindingKind::duplicate_rank;
    f.id = "duplicate_rank/" + std::to_string(rank);
    f.ranks = {rank};
    f.message =
        "rank " + std::to_string(rank) + " is reported by " + std::to_string(identities.size()) + " processes: ";
    for (std::size_t i = 0; i < identities.size(); ++i)
        f.message += (i == 0 ? "" : (i + 1 == identities.size() ? " and " : ", ")) + identities[i].text();
    f.fix =
        "Give every process its own RANK (torchrun --node-rank, SLURM_PROCID) and stop leftover processes of "
        "earlier runs; two processes with one rank break every collective.";
    return f;
}

Finding straggler(Phase phase, std::vector<SlowRank> slow, double median, std::size_t peers) {
    Finding f;
    f.kind = FindingKind::straggler;
    f.id = "straggler/" + std::string(to_string(phase));
    std::sort(slow.begin(), slow.end(), [](const SlowRank& a, const SlowRank& b) { return a.rank < b.rank; });
    for (const auto& s : slow) f.ranks.push_back(s.rank);
    f.message = "slow " + std::string(to_string(phase)) + ": ";
    for (std::size_t i = 0; i < slow.size() && i < 6; ++i) {
        f.message += (i ? ", rank " : "rank ") + std::to_string(slow[i].rank) +
                     (slow[i].running ? " still running after " : " ") + seconds_text(slow[i].seconds);
    }
    if (slow.size() > 6) f.message += " and " + std::to_string(slow.size() - 6) + " more";
    f.message += "; the median of " + std::to_string(peers) + " ranks is " + seconds_text(median);
    switch (phase) {
        case Phase::launch:
            f.fix = "Check these ranks' hosts for slow start-up (container pull, Python imports, shared filesystem).";
            break;
        case Phase::process_group:
            f.fix = "Check the rendezvous from these hosts (network to MASTER_ADDR:MASTER_PORT, DNS, firewall).";
            break;
        default:
            f.fix =
                "Check these ranks' hosts (NCCL_DEBUG=INFO output, NIC and NVLink errors, GPU clocks, CPU "
                "contention); a slow rank holds back every group it belongs to.";
    }
    return f;
}

Finding stale_rank(std::vector<std::int64_t> ranks, double stale_after) {
    Finding f;
    f.kind = FindingKind::stale_rank;
    f.id = "stale_rank";
    f.message = ranks_text(ranks) + (ranks.size() == 1 ? " has" : " have") + " sent no event for " +
                seconds_text(stale_after) + " or more without exiting";
    f.fix =
        "Look at these ranks' processes and hosts: a hang (py-spy dump --pid), a dead node, or a network cut to "
        "the collector; a hung rank stalls every group it belongs to.";
    f.ranks = std::move(ranks);
    return f;
}

Finding rank_error(std::int64_t rank, Phase phase, const std::optional<ReportedError>& error,
                   const std::optional<std::string>& host) {
    Finding f;
    f.kind = FindingKind::rank_error;
    f.id = "rank_error/" + std::to_string(rank);
    f.ranks = {rank};
    const std::string who = "rank " + std::to_string(rank);
    f.message = who + " failed in " + std::string(to_string(phase));
    if (host) f.message += " on " + *host;
    if (error && (!error->type.empty() || !error->message.empty())) {
        f.message += ": " + error->type + (error->type.empty() || error->message.empty() ? "" : ": ") +
                     first_line(error->message);
    }
    switch (phase) {
        case Phase::process_group:
            f.fix = "Read " + who +
                    "'s log for the traceback; check MASTER_ADDR, MASTER_PORT and WORLD_SIZE and that "
                    "every node joined the rendezvous, then relaunch.";
            break;
        case Phase::communicator:
            f.fix = "Read " + who +
                    "'s log with NCCL_DEBUG=INFO for the failing communicator (network, GPU, NCCL "
                    "version), fix it and relaunch.";
            break;
        case Phase::parallel_state:
            f.fix =
                "Read " + who + "'s log for the traceback; check dist_config (ep_size must divide dp) and relaunch.";
            break;
        default: f.fix = "Read " + who + "'s log for the full traceback, fix the cause and relaunch the job.";
    }
    return f;
}

Finding reinit_mismatch(std::int64_t rank, const std::string& current, const std::string& requested) {
    Finding f;
    f.kind = FindingKind::reinit_mismatch;
    f.id = "reinit_mismatch/" + std::to_string(rank);
    f.ranks = {rank};
    f.message = "rank " + std::to_string(rank) +
                " initialized the FSDPTurbo parallel state twice in one process, first with (dp, cp, ep) = " + current +
                ", then " + requested;
    const auto a = parse_tuple(current);
    const auto b = parse_tuple(requested);
    if (a && b && a->size() == 3 && b->size() == 3) {
        static constexpr std::array<const char*, 3> names = {"dp", "cp", "ep"};
        std::string changes;
        for (std::size_t i = 0; i < 3; ++i)
            if ((*a)[i] != (*b)[i])
                changes += std::string(changes.empty() ? "" : ", ") + names[i] + " " + std::to_string((*a)[i]) +
                           " -> " + std::to_string((*b)[i]);
        if (!changes.empty()) f.message += " (" + changes + ")";
    }
    f.message += "; FSDPTurbo never changes its topology in place, so it raised RuntimeError";
    f.fix =
        "Restart the process (torchrun relaunch) with the corrected topology instead of re-initializing in "
        "place, or reset the parallel state before initializing again; use the same dist_config everywhere "
        "initialize can run.";
    return f;
}

}  // namespace meshscope::monitor
