// Across polls of one RAS server: which communicators are mismatched and make no progress; and the protocol's
// handshake answer.
#include <algorithm>
#include <cctype>
#include <charconv>

#include "meshscope/records/nccl_ras.h"

namespace meshscope::records {

namespace {
// The counts that say whether a communicator moved: every rank's count of every operation, the ranks counted
// without names, and who is missing. Empty when the counts agree.
std::string differing_counts(const RasCommunicator& c, bool text_form) {
    bool differ = text_form && !c.mismatched_ops.empty();
    if (!text_form && c.ranks.size() > 1)
        for (const auto& r : c.ranks) differ = differ || r.collective_counts != c.ranks.front().collective_counts;
    if (!differ) return {};
    std::vector<const RasRank*> ranks;
    for (const auto& r : c.ranks) ranks.push_back(&r);
    std::sort(ranks.begin(), ranks.end(), [](const RasRank* a, const RasRank* b) { return a->rank < b->rank; });
    std::string out;
    for (const auto* r : ranks) {
        out += std::to_string(r->rank) + ":";
        for (const auto& [op, n] : r->collective_counts) out += op + "=" + std::to_string(n) + ",";
        out += ";";
    }
    for (const auto& u : c.unnamed) out += u.op + "=" + std::to_string(u.count) + "x" + std::to_string(u.ranks) + ";";
    for (const auto& m : c.missing_ranks) out += "missing " + std::to_string(m.rank) + ";";
    return out;
}
}  // namespace

std::vector<RasStall> RasStallWatch::observe(const RasStatus& status) {
    std::map<std::string, std::pair<std::string, int>> now;
    std::vector<RasStall> out;
    for (const auto& c : status.communicators) {
        std::string counts = differing_counts(c, status.text_form);
        if (counts.empty()) continue;
        int polls = 1;
        if (const auto it = last_.find(c.hash); it != last_.end() && it->second.first == counts)
            polls = it->second.second + 1;
        if (polls >= 2) out.push_back({c.hash, polls});
        now[c.hash] = {std::move(counts), polls};
    }
    last_ = std::move(now);
    return out;
}

std::vector<RasStall> RasStallWatch::still(const RasStatus& status) const {
    std::vector<RasStall> out;
    for (const auto& c : status.communicators)
        if (const auto it = last_.find(c.hash);
            it != last_.end() && it->second.second >= 2 && it->second.first == differing_counts(c, status.text_form))
            out.push_back({c.hash, it->second.second});
    return out;
}

std::optional<long> ras_server_protocol(std::string_view line) {
    // client.cc compares the prefix without case and reads the number with strtol.
    constexpr std::string_view prefix = "SERVER PROTOCOL ";
    if (line.size() < prefix.size()) return std::nullopt;
    for (std::size_t i = 0; i < prefix.size(); ++i)
        if (std::toupper(static_cast<unsigned char>(line[i])) != prefix[i]) return std::nullopt;
    line.remove_prefix(prefix.size());
    while (line.ends_with('\n') || line.ends_with('\r')) line.remove_suffix(1);
    long v = 0;
    const auto r = std::from_chars(line.data(), line.data() + line.size(), v);
    if (r.ec != std::errc() || r.ptr != line.data() + line.size()) return std::nullopt;
    return v;
}

}  // namespace meshscope::records
