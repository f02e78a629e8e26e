// Where each rank stands in a hang: its JSON, and the job's summary both Live pages show.
#include "meshscope/monitor/hang_position.h"
#include "meshscope/monitor/hang_place.h"

#include <algorithm>
#include <map>
#include <tuple>

#include <nlohmann/json.hpp>

#include "event_fields.h"
#include "meshscope/monitor/finding_text.h"

namespace meshscope {

namespace {
using event_fields::field_error;
using event_fields::member;
using nlohmann::json;

constexpr std::string_view standing_names[hang_standing_count] = {"waiting", "outside_collectives", "no_record",
                                                                  "dead"};
// Bounds of what a document may say of one rank: a dim name, an op, a group's label.
constexpr std::size_t max_name = 256;
constexpr std::size_t max_label = 4096;
constexpr std::int64_t max_seq = std::int64_t{1} << 53;

std::string sub(std::string_view field, std::string_view key) {
    return std::string(field) + "." + std::string(key);
}

// The optional group fields of a position or a call: dim, group, seq, op.
template <typename T>
std::optional<Error> read_place(const json& value, std::string_view field, T& out) {
    if (const json* dim = member(value, "dim")) {
        auto text = event_fields::read_string(*dim, sub(field, "dim"), max_name);
        if (!text) return text.error();
        out.dim = std::move(text).value();
    }
    if (const json* group = member(value, "group")) {
        auto n = event_fields::read_int(*group, sub(field, "group"), 0, max_seq);
        if (!n) return n.error();
        out.group = *n;
    }
    if (const json* seq = member(value, "seq")) {
        auto n = event_fields::read_int(*seq, sub(field, "seq"), 0, max_seq);
        if (!n) return n.error();
        out.seq = *n;
    }
    if (const json* op = member(value, "op")) {
        auto text = event_fields::read_string(*op, sub(field, "op"), max_name);
        if (!text) return text.error();
        out.op = std::move(text).value();
    }
    return std::nullopt;
}

template <typename T>
void write_place(json& j, const T& p) {
    if (!p.dim.empty()) j["dim"] = p.dim;
    if (p.group >= 0) j["group"] = p.group;
    if (p.seq > 0) j["seq"] = p.seq;
    if (!p.op.empty()) j["op"] = p.op;
}

std::optional<Error> read_bool(const json& value, std::string_view field, const char* key, bool& out) {
    if (const json* b = member(value, key)) {
        if (!b->is_boolean()) return field_error(sub(field, key), "must be true or false");
        out = b->get<bool>();
    }
    return std::nullopt;
}

// "ep seq 2", "communicator commId 0x5ae7 (4 ranks) seq 2": where a waiting place is.
std::string where_text(const HangPlace& p) {
    return (p.dim.empty() ? std::string("an unnamed group") : p.dim) + " seq " + std::to_string(p.seq);
}

// "rank 2", "ranks 2, 5", or "40 ranks" when not all of them are named.
std::string who_text(const HangPlace& p) {
    if (static_cast<std::int64_t>(p.some.size()) == p.ranks && p.ranks <= 3) return monitor::ranks_text(p.some);
    return std::to_string(p.ranks) + (p.ranks == 1 ? " rank" : " ranks");
}
// The place a position stands in: (standing, dim, seq, op), dim, seq and op only for a waiting rank.
using PlaceKey = std::tuple<HangStanding, std::string, std::int64_t, std::string>;
PlaceKey place_key(const HangPosition& p) {
    if (p.standing != HangStanding::waiting) return {p.standing, std::string(), 0, std::string()};
    return {p.standing, p.dim.empty() ? p.label : p.dim, p.seq, p.op};
}
}  // namespace

std::string_view to_string(HangStanding standing) noexcept {
    return standing_names[static_cast<std::size_t>(standing)];
}

std::optional<HangStanding> parse_hang_standing(std::string_view text) noexcept {
    for (std::size_t i = 0; i < hang_standing_count; ++i)
        if (standing_names[i] == text) return static_cast<HangStanding>(i);
    return std::nullopt;
}

json to_json(const HangPosition& p) {
    json j = {{"standing", to_string(p.standing)}};
    write_place(j, p);
    if (!p.label.empty()) j["label"] = p.label;
    if (p.root_cause) j["root_cause"] = true;
    if (!p.last.empty()) {
        json last = json::array();
        for (const RecordsCall& c : p.last) {
            json o = json::object();
            write_place(o, c);
            o["completed"] = c.completed;
            last.push_back(std::move(o));
        }
        j["last"] = std::move(last);
    }
    return j;
}

Expected<HangPosition> hang_position_from_json(const json& value, std::string_view field) {
    if (!value.is_object()) return field_error(field, "must be an object");
    HangPosition p;
    const json* standing = member(value, "standing");
    if (!standing) return field_error(sub(field, "standing"), "is required");
    const auto parsed =
        standing->is_string() ? parse_hang_standing(standing->get_ref<const std::string&>()) : std::nullopt;
    if (!parsed) return field_error(sub(field, "standing"), event_fields::one_of<HangStanding>(hang_standing_count));
    p.standing = *parsed;
    if (auto error = read_place(value, field, p)) return *error;
    if (const json* label = member(value, "label")) {
        auto text = event_fields::read_string(*label, sub(field, "label"), max_label);
        if (!text) return text.error();
        p.label = std::move(text).value();
    }
    if (auto error = read_bool(value, field, "root_cause", p.root_cause)) return *error;
    if (const json* last = member(value, "last")) {
        const std::string name = sub(field, "last");
        if (!last->is_array() || last->size() > HangPosition::max_last)
            return field_error(
                name, "must be an array of at most " + std::to_string(HangPosition::max_last) + " collectives");
        for (std::size_t i = 0; i < last->size(); ++i) {
            const std::string item = name + "[" + std::to_string(i) + "]";
            const json& c = (*last)[i];
            if (!c.is_object()) return field_error(item, "must be an object");
            RecordsCall call;
            if (auto error = read_place(c, item, call)) return *error;
            if (auto error = read_bool(c, item, "completed", call.completed)) return *error;
            p.last.push_back(std::move(call));
        }
    }
    return p;
}

HangSummary summarize_hang(std::span<const RankedPosition> ranks) {
    // Places by (standing, dim, seq, op): the waiting ones told apart by where they wait.
    std::map<PlaceKey, HangPlace> places;
    HangSummary s;
    std::int64_t root_causes = 0;
    for (const RankedPosition& r : ranks) {
        if (!r.position) continue;
        const HangPosition& p = *r.position;
        PlaceKey key = place_key(p);
        HangPlace& place = places[key];
        if (place.ranks == 0) {
            place.standing = p.standing;
            place.dim = std::move(std::get<1>(key));
            place.seq = std::get<2>(key);
            place.op = std::move(std::get<3>(key));
        }
        ++place.ranks;
        place.some.push_back(r.rank);
        if (p.root_cause) {
            ++root_causes;
            s.root_cause.push_back(r.rank);
        }
    }
    auto lowest = [](std::vector<std::int64_t>& ranks) {
        std::sort(ranks.begin(), ranks.end());
        if (ranks.size() > HangPlace::max_named) ranks.resize(HangPlace::max_named);
    };
    lowest(s.root_cause);
    for (auto& [key, place] : places) {
        lowest(place.some);
        place.text = place.standing == HangStanding::waiting
                         ? "waiting in " + where_text(place) + (place.op.empty() ? "" : " (" + place.op + ")")
                     : place.standing == HangStanding::outside_collectives ? std::string("outside collectives")
                     : place.standing == HangStanding::dead                ? std::string("dead (NCCL RAS)")
                                                                           : std::string("no record");
        s.places.push_back(place);
    }
    // Waiting places first, most ranks first (then by dim and seq); then no record, dead, outside collectives.
    auto order = [](HangStanding st) {
        switch (st) {
            case HangStanding::waiting: return 0;
            case HangStanding::no_record: return 1;
            case HangStanding::dead: return 2;
            case HangStanding::outside_collectives: return 3;
        }
        return 4;
    };
    std::stable_sort(s.places.begin(), s.places.end(), [&](const HangPlace& a, const HangPlace& b) {
        if (order(a.standing) != order(b.standing)) return order(a.standing) < order(b.standing);
        return a.standing == HangStanding::waiting && a.ranks > b.ranks;
    });

    std::vector<std::string> parts;
    if (!s.root_cause.empty()) {
        HangPlace named;
        named.ranks = root_causes;
        named.some = s.root_cause;
        parts.push_back("root cause: " + who_text(named));
    }
    bool first_waiting = true;
    for (const HangPlace& p : s.places) {
        if (p.standing == HangStanding::waiting) {
            // Where ranks wait is counted (who waits is the place's list); the ranks to act on are named.
            parts.push_back((first_waiting ? "waiting in " : "in ") + where_text(p) + ": " + std::to_string(p.ranks) +
                            (first_waiting ? (p.ranks == 1 ? " rank" : " ranks") : ""));
            first_waiting = false;
        } else {
            const std::string_view name = p.standing == HangStanding::outside_collectives ? "outside collectives"
                                          : p.standing == HangStanding::dead              ? "dead"
                                                                                          : "no record";
            parts.push_back(std::string(name) + ": " + who_text(p));
        }
    }
    for (std::size_t i = 0; i < parts.size(); ++i) s.text += (i ? "; " : "") + parts[i];
    return s;
}

bool stands_in(const HangPosition& position, const HangPlace& place) {
    return place_key(position) == PlaceKey{place.standing, place.dim, place.seq, place.op};
}

json to_json(const HangSummary& s) {
    json places = json::array();
    for (const HangPlace& p : s.places) {
        json o = {{"standing", to_string(p.standing)}, {"ranks", p.ranks}, {"some", p.some}, {"text", p.text}};
        if (!p.dim.empty()) o["dim"] = p.dim;
        if (p.seq > 0) o["seq"] = p.seq;
        if (!p.op.empty()) o["op"] = p.op;
        places.push_back(std::move(o));
    }
    return {{"text", s.text}, {"root_cause", s.root_cause}, {"places", std::move(places)}};
}

Expected<HangSummary> hang_summary_from_json(const json& value, std::string_view field) {
    if (!value.is_object()) return field_error(field, "must be an object");
    HangSummary s;
    auto ranks_of = [&](const json& list, const std::string& name,
                        std::vector<std::int64_t>& out) -> std::optional<Error> {
        if (!list.is_array() || list.size() > HangPlace::max_named)
            return field_error(name, "must be an array of at most " + std::to_string(HangPlace::max_named) + " ranks");
        for (const json& r : list) {
            auto n = event_fields::read_int(r, name, 0, max_seq);
            if (!n) return n.error();
            out.push_back(*n);
        }
        return std::nullopt;
    };
    if (const json* text = member(value, "text")) {
        auto t = event_fields::read_string(*text, sub(field, "text"), max_label);
        if (!t) return t.error();
        s.text = std::move(t).value();
    }
    if (const json* roots = member(value, "root_cause"))
        if (auto error = ranks_of(*roots, sub(field, "root_cause"), s.root_cause)) return *error;
    if (const json* places = member(value, "places")) {
        if (!places->is_array()) return field_error(sub(field, "places"), "must be an array");
        for (std::size_t i = 0; i < places->size(); ++i) {
            const std::string item = sub(field, "places") + "[" + std::to_string(i) + "]";
            const json& o = (*places)[i];
            if (!o.is_object()) return field_error(item, "must be an object");
            HangPlace p;
            const json* standing = member(o, "standing");
            const auto parsed = standing && standing->is_string()
                                    ? parse_hang_standing(standing->get_ref<const std::string&>())
                                    : std::nullopt;
            if (!parsed)
                return field_error(sub(item, "standing"), event_fields::one_of<HangStanding>(hang_standing_count));
            p.standing = *parsed;
            RecordsCall at;
            if (auto error = read_place(o, item, at)) return *error;
            p.dim = std::move(at.dim);
            p.seq = at.seq;
            p.op = std::move(at.op);
            if (const json* n = member(o, "ranks")) {
                auto count = event_fields::read_int(*n, sub(item, "ranks"), 0, max_seq);
                if (!count) return count.error();
                p.ranks = *count;
            }
            if (const json* some = member(o, "some"))
                if (auto error = ranks_of(*some, sub(item, "some"), p.some)) return *error;
            if (const json* text = member(o, "text")) {
                auto t = event_fields::read_string(*text, sub(item, "text"), max_label);
                if (!t) return t.error();
                p.text = std::move(t).value();
            }
            s.places.push_back(std::move(p));
        }
    }
    return s;
}

}  // namespace meshscope
