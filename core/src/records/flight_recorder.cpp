#include "meshscope/records/flight_recorder.h"

#include <charconv>

#include <nlohmann/json.hpp>

#include "meshscope/records/pickle.h"

namespace meshscope::records {

namespace {
using nlohmann::json;

// A field error: "nccl_trace_rank_3: entries[4].collective_seq_id must be an integer, got \"x\""
struct FieldError {
    std::string path, what;
};

std::string shown(const json& value) {
    std::string text = value.dump(-1, ' ', true, json::error_handler_t::replace);
    if (text.size() > 60) text = text.substr(0, 57) + "...";
    return text;
}

const json* member(const json& object, const char* key) {
    const auto it = object.find(key);
    return it == object.end() || it->is_null() ? nullptr : &*it;
}

std::int64_t as_int(const json& v, const std::string& path) {
    if (v.is_number_integer()) return v.get<std::int64_t>();
    if (v.is_number_unsigned()) {
        const auto u = v.get<std::uint64_t>();
        if (u <= static_cast<std::uint64_t>(INT64_MAX)) return static_cast<std::int64_t>(u);
    }
    throw FieldError{path, "must be an integer, got " + shown(v)};
}

std::string as_string(const json& v, const std::string& path) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());  // thread_id is a number in some versions
    throw FieldError{path, "must be a string, got " + shown(v)};
}

// pg_status's counters: integers in the pickle, strings ("3") in torch's JSON dump.
std::int64_t as_counter(const json& v, const std::string& path) {
    if (v.is_string()) {
        const std::string& text = v.get_ref<const std::string&>();
        std::int64_t out = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
        if (ec == std::errc() && end == text.data() + text.size() && !text.empty()) return out;
        throw FieldError{path, "must be an integer, got " + shown(v)};
    }
    return as_int(v, path);
}

bool as_bool(const json& v, const std::string& path) {
    if (v.is_boolean()) return v.get<bool>();
    throw FieldError{path, "must be true or false, got " + shown(v)};
}

void read_int(const json& object, const char* key, const std::string& path, std::int64_t& out) {
    if (const json* v = member(object, key)) out = as_int(*v, path + "." + key);
}
void read_string(const json& object, const char* key, const std::string& path, std::string& out) {
    if (const json* v = member(object, key)) out = as_string(*v, path + "." + key);
}

std::vector<Shape> read_shapes(const json& v, const std::string& path) {
    if (!v.is_array()) throw FieldError{path, "must be a list of shapes, got " + shown(v)};
    std::vector<Shape> out;
    out.reserve(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
        const std::string p = path + "[" + std::to_string(i) + "]";
        if (!v[i].is_array()) throw FieldError{p, "must be a list of integers, got " + shown(v[i])};
        Shape shape;
        for (std::size_t k = 0; k < v[i].size(); ++k)
            shape.push_back(as_int(v[i][k], p + "[" + std::to_string(k) + "]"));
        out.push_back(std::move(shape));
    }
    return out;
}

std::vector<std::string> read_strings(const json& v, const std::string& path) {
    if (!v.is_array()) throw FieldError{path, "must be a list of strings, got " + shown(v)};
    std::vector<std::string> out;
    for (std::size_t i = 0; i < v.size(); ++i) out.push_back(as_string(v[i], path + "[" + std::to_string(i) + "]"));
    return out;
}

// "[0, 1, 2]" as torch writes pg_config ranks, or a JSON list.
std::vector<std::int64_t> read_ranks(const json& v, const std::string& path) {
    std::vector<std::int64_t> out;
    if (v.is_array()) {
        for (std::size_t i = 0; i < v.size(); ++i) out.push_back(as_int(v[i], path + "[" + std::to_string(i) + "]"));
        return out;
    }
    if (!v.is_string()) throw FieldError{path, "must be a list of ranks, got " + shown(v)};
    const std::string text = v.get<std::string>();
    std::string_view rest = text;
    if (rest.starts_with('[')) rest.remove_prefix(1);
    if (rest.ends_with(']')) rest.remove_suffix(1);
    while (!rest.empty()) {
        while (!rest.empty() && (rest.front() == ' ' || rest.front() == ',')) rest.remove_prefix(1);
        if (rest.empty()) break;
        std::int64_t r = 0;
        const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), r);
        if (ec != std::errc()) throw FieldError{path, "must be a list of ranks, got " + shown(v)};
        out.push_back(r);
        rest.remove_prefix(static_cast<std::size_t>(end - rest.data()));
    }
    return out;
}

FrEntry read_entry(const json& e, const std::string& path) {
    if (!e.is_object()) throw FieldError{path, "must be an object, got " + shown(e)};
    FrEntry out;
    read_int(e, "record_id", path, out.record_id);
    read_int(e, "pg_id", path, out.pg_id);
    const json* pg = member(e, "process_group");
    if (!pg) throw FieldError{path + ".process_group", "is missing"};
    if (!pg->is_array() || pg->size() != 2)
        throw FieldError{path + ".process_group", "must be (name, desc), got " + shown(*pg)};
    out.pg_name = as_string((*pg)[0], path + ".process_group[0]");
    out.pg_desc = as_string((*pg)[1], path + ".process_group[1]");
    const json* seq = member(e, "collective_seq_id");
    if (!seq) throw FieldError{path + ".collective_seq_id", "is missing"};
    out.collective_seq_id = as_int(*seq, path + ".collective_seq_id");
    read_int(e, "p2p_seq_id", path, out.p2p_seq_id);
    read_int(e, "op_id", path, out.op_id);
    const json* name = member(e, "profiling_name");
    if (!name) throw FieldError{path + ".profiling_name", "is missing"};
    out.profiling_name = as_string(*name, path + ".profiling_name");
    read_int(e, "time_created_ns", path, out.time_created_ns);
    if (const json* v = member(e, "input_sizes")) out.input_sizes = read_shapes(*v, path + ".input_sizes");
    if (const json* v = member(e, "output_sizes")) out.output_sizes = read_shapes(*v, path + ".output_sizes");
    if (const json* v = member(e, "input_dtypes")) out.input_dtypes = read_strings(*v, path + ".input_dtypes");
    if (const json* v = member(e, "output_dtypes")) out.output_dtypes = read_strings(*v, path + ".output_dtypes");
    read_string(e, "state", path, out.state);
    // JSON dumps write 0 where pickle writes None: both mean "not discovered".
    for (const auto& [key, field] : {std::pair{"time_discovered_started_ns", &out.time_discovered_started_ns},
                                     std::pair{"time_discovered_completed_ns", &out.time_discovered_completed_ns}})
        if (const json* v = member(e, key))
            if (const std::int64_t t = as_int(*v, path + "." + key); t != 0) *field = t;
    if (const json* v = member(e, "retired")) out.retired = as_bool(*v, path + ".retired");
    read_int(e, "timeout_ms", path, out.timeout_ms);
    if (const json* v = member(e, "is_p2p")) out.is_p2p = as_bool(*v, path + ".is_p2p");
    if (const json* v = member(e, "duration_ms")) {
        if (!v->is_number()) throw FieldError{path + ".duration_ms", "must be a number, got " + shown(*v)};
        out.duration_ms = v->get<double>();
    }
    if (const json* v = member(e, "frames")) {
        if (!v->is_array()) throw FieldError{path + ".frames", "must be a list, got " + shown(*v)};
        for (std::size_t i = 0; i < v->size(); ++i) {
            const std::string p = path + ".frames[" + std::to_string(i) + "]";
            const json& f = (*v)[i];
            if (!f.is_object()) throw FieldError{p, "must be an object, got " + shown(f)};
            FrFrame frame;
            read_string(f, "name", p, frame.name);
            read_string(f, "filename", p, frame.filename);
            read_int(f, "line", p, frame.line);
            out.frames.push_back(std::move(frame));
        }
    }
    read_string(e, "thread_id", path, out.thread_id);
    read_string(e, "thread_name", path, out.thread_name);
    return out;
}
}  // namespace

std::string_view FrEntry::collective() const {
    const std::string_view name = profiling_name;
    const std::size_t colon = name.find(':');
    return colon == std::string_view::npos ? name : name.substr(colon + 1);
}

std::optional<std::int64_t> rank_from_file_name(std::string_view file) {
    if (const std::size_t slash = file.rfind('/'); slash != std::string_view::npos) file.remove_prefix(slash + 1);
    if (file.ends_with(".json")) file.remove_suffix(5);
    if (file.ends_with(".pkl")) file.remove_suffix(4);
    std::size_t start = file.size();
    while (start > 0 && file[start - 1] >= '0' && file[start - 1] <= '9') --start;
    if (start == file.size() || file.size() - start > 9) return std::nullopt;
    std::int64_t rank = 0;
    std::from_chars(file.data() + start, file.data() + file.size(), rank);
    return rank;
}

Expected<FrDump> fr_dump_from_json(const json& document, std::string file, std::string format) {
    const auto error = [&](const std::string& path, const std::string& what) {
        return Error(ErrorType::value_error, file + ": " + path + " " + what);
    };
    if (!document.is_object()) return error("the dump", "must be an object, got " + shown(document));
    FrDump dump;
    dump.file = file;
    dump.format = std::move(format);
    if (const auto rank = rank_from_file_name(file)) dump.rank = *rank;
    try {
        const json* version = member(document, "version");
        if (!version) throw FieldError{"version", "is missing"};
        dump.version = as_string(*version, "version");
        read_string(document, "comm_lib_version", "", dump.comm_lib_version);
        if (const json* config = member(document, "pg_config")) {
            if (!config->is_object()) throw FieldError{"pg_config", "must be an object, got " + shown(*config)};
            for (const auto& [key, value] : config->items()) {
                const std::string path = "pg_config[\"" + key + "\"]";
                if (!value.is_object()) throw FieldError{path, "must be an object, got " + shown(value)};
                FrGroupConfig c;
                read_string(value, "name", path, c.name);
                read_string(value, "desc", path, c.desc);
                if (const json* ranks = member(value, "ranks")) c.ranks = read_ranks(*ranks, path + ".ranks");
                dump.pg_config.emplace(key, std::move(c));
            }
        }
        if (const json* status = member(document, "pg_status")) {
            if (!status->is_object()) throw FieldError{"pg_status", "must be an object, got " + shown(*status)};
            for (const auto& [key, value] : status->items()) {
                const std::string path = "pg_status[\"" + key + "\"]";
                if (!value.is_object()) throw FieldError{path, "must be an object, got " + shown(value)};
                FrGroupStatus s;
                for (const auto& [key, field] : {std::pair{"last_enqueued_collective", &s.last_enqueued},
                                                 std::pair{"last_started_collective", &s.last_started},
                                                 std::pair{"last_completed_collective", &s.last_completed}})
                    if (const json* v = member(value, key)) *field = as_counter(*v, path + "." + key);
                dump.pg_status.emplace(key, s);
            }
        }
        if (const json* entries = member(document, "entries")) {
            if (!entries->is_array()) throw FieldError{"entries", "must be a list, got " + shown(*entries)};
            dump.entries.reserve(entries->size());
            for (std::size_t i = 0; i < entries->size(); ++i)
                dump.entries.push_back(read_entry((*entries)[i], "entries[" + std::to_string(i) + "]"));
        }
    } catch (const FieldError& e) {
        return error(e.path, e.what);
    }
    return dump;
}

Expected<FrDump> read_fr_dump(std::string_view bytes, std::string file) {
    std::size_t first = 0;
    while (first < bytes.size() &&
           (bytes[first] == ' ' || bytes[first] == '\n' || bytes[first] == '\r' || bytes[first] == '\t'))
        ++first;
    if (first == bytes.size()) return Error(ErrorType::value_error, file + ": empty file (no Flight Recorder dump)");
    if (bytes[first] == '{') {
        json document;
        try {
            document = json::parse(bytes);
        } catch (const json::parse_error& e) {
            return Error(ErrorType::value_error,
                         file + " at byte " + std::to_string(e.byte > 0 ? e.byte - 1 : 0) + ": not valid JSON");
        } catch (const json::out_of_range&) {  // a number beyond a double's range (nlohmann's out_of_range.406)
            return Error(ErrorType::value_error, file + ": not valid JSON: a number is out of range");
        }
        return fr_dump_from_json(document, std::move(file), "json");
    }
    auto document = read_plain_pickle(bytes, file);
    if (!document) return document.error();
    return fr_dump_from_json(*document, std::move(file), "pickle");
}

}  // namespace meshscope::records
