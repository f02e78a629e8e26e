#include "meshscope/records/nccl_ras.h"

#include "meshscope/mesh/json_limits.h"

#include <nlohmann/json.hpp>

namespace meshscope::records {

namespace {
using nlohmann::json;

struct FieldError {
    std::string path, what;
};

std::string shown(const json& value) {
    std::string text = value.dump(-1, ' ', true, json::error_handler_t::replace);
    return text.size() > 60 ? text.substr(0, 57) + "..." : text;
}

const json& need(const json& object, const char* key, const std::string& path) {
    const auto it = object.find(key);
    if (it == object.end()) throw FieldError{path + "." + key, "is missing"};
    return *it;
}

std::int64_t int_at(const json& object, const char* key, const std::string& path) {
    const json& v = need(object, key, path);
    if (!v.is_number_integer()) throw FieldError{path + "." + key, "must be an integer, got " + shown(v)};
    return v.get<std::int64_t>();
}

std::string string_at(const json& object, const char* key, const std::string& path) {
    const json& v = need(object, key, path);
    if (!v.is_string()) throw FieldError{path + "." + key, "must be a string, got " + shown(v)};
    return v.get<std::string>();
}

bool bool_at(const json& object, const char* key, const std::string& path) {
    const json& v = need(object, key, path);
    if (!v.is_boolean()) throw FieldError{path + "." + key, "must be true or false, got " + shown(v)};
    return v.get<bool>();
}

const json& array_at(const json& object, const char* key, const std::string& path) {
    const json& v = need(object, key, path);
    if (!v.is_array()) throw FieldError{path + "." + key, "must be a list, got " + shown(v)};
    return v;
}

const json& object_at(const json& object, const char* key, const std::string& path) {
    const json& v = need(object, key, path);
    if (!v.is_object()) throw FieldError{path + "." + key, "must be an object, got " + shown(v)};
    return v;
}

// Where a rank (present or missing) runs: RAS writes the same five fields for both.
template <typename Rank>
void read_place(const json& r, const std::string& path, Rank& rank) {
    rank.rank = int_at(r, "rank", path);
    rank.host = string_at(r, "host", path);
    rank.pid = int_at(r, "pid", path);
    rank.cuda_dev = int_at(r, "cuda_dev", path);
    rank.nvml_dev = int_at(r, "nvml_dev", path);
}
}  // namespace

Expected<RasStatus> read_ras_json(std::string_view bytes, std::string file) {
    json doc;
    try {
        doc = parse_json_throwing(bytes);
    } catch (const JsonTooDeep& e) {
        return Error(ErrorType::value_error, file + ": " + e.what());
    } catch (const json::parse_error& e) {
        return Error(ErrorType::value_error,
                     file + " at byte " + std::to_string(e.byte > 0 ? e.byte - 1 : 0) + ": not valid JSON");
    } catch (const json::out_of_range&) {  // a number beyond a double's range (nlohmann's out_of_range.406)
        return Error(ErrorType::value_error, file + ": not valid JSON: a number is out of range");
    }
    RasStatus out;
    out.file = file;
    try {
        if (!doc.is_object()) throw FieldError{"the status", "must be an object, got " + shown(doc)};
        out.nccl_version = string_at(doc, "nccl_version", "");
        if (doc.contains("timestamp")) out.timestamp = string_at(doc, "timestamp", "");
        const json& comms = array_at(doc, "communicators", "");
        for (std::size_t i = 0; i < comms.size(); ++i) {
            const std::string p = "communicators[" + std::to_string(i) + "]";
            const json& c = comms[i];
            if (!c.is_object()) throw FieldError{p, "must be an object, got " + shown(c)};
            RasCommunicator comm;
            comm.hash = string_at(c, "hash", p);
            if (c.contains("secondary_hash")) comm.secondary_hash = string_at(c, "secondary_hash", p);
            comm.size = int_at(c, "size", p);
            const json& ranks = array_at(c, "ranks", p);
            for (std::size_t k = 0; k < ranks.size(); ++k) {
                const std::string rp = p + ".ranks[" + std::to_string(k) + "]";
                const json& r = ranks[k];
                if (!r.is_object()) throw FieldError{rp, "must be an object, got " + shown(r)};
                RasRank rank;
                read_place(r, rp, rank);
                const json& s = object_at(r, "status", rp);
                rank.init_state = int_at(s, "init_state", rp + ".status");
                rank.async_error = int_at(s, "async_error", rp + ".status");
                rank.finalize_called = bool_at(s, "finalize_called", rp + ".status");
                rank.destroy_flag = bool_at(s, "destroy_flag", rp + ".status");
                rank.abort_flag = bool_at(s, "abort_flag", rp + ".status");
                if (r.contains("collective_counts")) {
                    for (const auto& [name, count] : object_at(r, "collective_counts", rp).items()) {
                        // is_number_integer holds for unsigned numbers too: one above INT64_MAX reads as negative and
                        // is refused
                        if (!count.is_number_integer() || count.get<std::int64_t>() < 0)
                            throw FieldError{rp + ".collective_counts." + name, "must be a count, got " + shown(count)};
                        rank.collective_counts[name] = count.get<std::uint64_t>();
                    }
                }
                comm.ranks.push_back(std::move(rank));
            }
            if (c.contains("missing_ranks")) {
                const json& missing = array_at(c, "missing_ranks", p);
                for (std::size_t k = 0; k < missing.size(); ++k) {
                    const std::string mp = p + ".missing_ranks[" + std::to_string(k) + "]";
                    const json& m = missing[k];
                    if (!m.is_object()) throw FieldError{mp, "must be an object, got " + shown(m)};
                    RasMissingRank rank;
                    read_place(m, mp, rank);
                    const json& s = object_at(m, "status", mp);
                    rank.unresponsive = bool_at(s, "unresponsive", mp + ".status");
                    rank.considered_dead = bool_at(s, "considered_dead", mp + ".status");
                    comm.missing_ranks.push_back(std::move(rank));
                }
            }
            out.communicators.push_back(std::move(comm));
        }
        if (doc.contains("ras")) {
            const json& ras = object_at(doc, "ras", "");
            if (ras.contains("collection_time_sec") && ras["collection_time_sec"].is_number())
                out.collection_time_sec = ras["collection_time_sec"].get<double>();
            if (ras.contains("timeouts_count")) out.timeouts_count = int_at(ras, "timeouts_count", ".ras");
        }
    } catch (const FieldError& e) {
        std::string path = e.path;
        if (path.starts_with('.')) path.erase(0, 1);
        return Error(ErrorType::value_error, file + ": " + path + " " + e.what);
    }
    return out;
}

}  // namespace meshscope::records
