#include "meshscope/records/flight_recorder.h"

#include <algorithm>
#include <charconv>
#include <cstring>

#include <nlohmann/json.hpp>

#include "meshscope/mesh/json_limits.h"
#include "meshscope/records/pickle.h"
#include "records/fr_pool.h"
#include "records/value_tree.h"

namespace meshscope::records {

namespace {
using detail::Node;
using detail::ValueTree;
using Kind = Node::Kind;

// A field error: "nccl_trace_rank_3: entries[4].collective_seq_id must be an integer, got \"x\""
struct FieldError {
    std::string path, what;
};

// Where a value is, spelled only when an error names it: "entries[4].input_sizes[0][1]".
struct Path {
    const Path* parent = nullptr;
    std::string_view name;  // appended as it is (".state"), or quoted as a key (["0"])
    std::int64_t index = -1;
    bool quoted = false;
    [[nodiscard]] std::string text() const {
        std::string out = parent ? parent->text() : std::string();
        if (index >= 0)
            out += "[" + std::to_string(index) + "]";
        else if (quoted)
            out += "[\"" + std::string(name) + "\"]";
        else
            out += name;
        return out;
    }
    [[nodiscard]] Path at(std::int64_t i) const { return {this, {}, i, false}; }
    [[nodiscard]] Path field(std::string_view dotted) const { return {this, dotted, -1, false}; }
};

class Converter {
public:
    Converter(const ValueTree& tree, detail::FrPool& pool, FrShared* shared)
        : tree_(tree), interner_(pool), shared_(shared) {}

    [[noreturn]] void fail(const Path& path, std::string what) const { throw FieldError{path.text(), std::move(what)}; }

    std::string shown(const Node& value) const {
        // Error messages show at most 60 characters: the value is converted only as far as those need.
        std::string text = tree_.to_json(value, 64).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
        if (text.size() > 60) text = text.substr(0, 57) + "...";
        return text;
    }

    static bool is_integer(const Node& v) { return v.kind == Kind::integer || v.kind == Kind::unsigned_integer; }

    std::int64_t as_int(const Node& v, const Path& path) const {
        // nlohmann reads every integer that fits 64 bits as one (an unsigned beyond int64 wraps, as it did).
        if (v.kind == Kind::integer) return v.i;
        if (v.kind == Kind::unsigned_integer) return static_cast<std::int64_t>(v.u);
        fail(path, "must be an integer, got " + shown(v));
    }

    // A string's text; an integer as its digits (thread_id is a number in some versions).
    std::string_view as_string(const Node& v, const Path& path, std::string& scratch) const {
        if (v.kind == Kind::string) return v.text();
        if (is_integer(v)) {
            scratch = std::to_string(as_int(v, path));
            return scratch;
        }
        fail(path, "must be a string, got " + shown(v));
    }
    std::string string_value(const Node& v, const Path& path) const {
        std::string scratch;
        return std::string(as_string(v, path, scratch));
    }

    // pg_status's counters: integers in the pickle, strings ("3") in torch's JSON dump.
    std::int64_t as_counter(const Node& v, const Path& path) const {
        if (v.kind == Kind::string) {
            const std::string_view text = v.text();
            std::int64_t out = 0;
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
            if (ec == std::errc() && end == text.data() + text.size() && !text.empty()) return out;
            fail(path, "must be an integer, got " + shown(v));
        }
        return as_int(v, path);
    }

    bool as_bool(const Node& v, const Path& path) const {
        if (v.kind == Kind::boolean) return v.flag;
        fail(path, "must be true or false, got " + shown(v));
    }

    // "[0, 1, 2]" as torch writes pg_config ranks, or a JSON list.
    FrRanks read_ranks(const Node& v, const Path& path) const {
        if (v.kind == Kind::list) {
            std::vector<std::int64_t> out;
            std::int64_t k = 0;
            tree_.each(v, [&](std::uint32_t child) { out.push_back(as_int(tree_.nodes[child], path.at(k++))); });
            return std::make_shared<const std::vector<std::int64_t>>(std::move(out));
        }
        if (v.kind != Kind::string) fail(path, "must be a list of ranks, got " + shown(v));
        const auto parse = [&] {
            std::vector<std::int64_t> out;
            if (!detail::parse_rank_list(v.text(), out)) fail(path, "must be a list of ranks, got " + shown(v));
            return out;
        };
        if (shared_) return shared_->ranks(v.text(), parse);
        return std::make_shared<const std::vector<std::int64_t>>(parse());
    }

    // A dict's items sorted by key, the last of equal keys kept: the order and the values nlohmann's object has.
    std::vector<std::pair<std::string_view, const Node*>> items(const Node& dict) const {
        std::vector<std::pair<std::string_view, const Node*>> out;
        std::string_view key;
        bool is_key = true;
        tree_.each(dict, [&](std::uint32_t child) {
            if (is_key)
                key = tree_.nodes[child].text();
            else
                out.emplace_back(key, &tree_.nodes[child]);
            is_key = !is_key;
        });
        std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        std::vector<std::pair<std::string_view, const Node*>> unique;
        for (std::size_t i = 0; i < out.size(); ++i)
            if (i + 1 == out.size() || out[i + 1].first != out[i].first) unique.push_back(out[i]);
        return unique;
    }

    void dump(const Node& document, FrDump& out) {
        const Path root_version{nullptr, "version"};
        const Node* version = tree_.member(document, "version");
        if (!version) fail(root_version, "is missing");
        out.version = string_value(*version, root_version);
        if (const Node* v = tree_.member(document, "comm_lib_version"))
            out.comm_lib_version = string_value(*v, Path{nullptr, ".comm_lib_version"});
        if (const Node* config = tree_.member(document, "pg_config")) {
            const Path at{nullptr, "pg_config"};
            if (config->kind != Kind::dict) fail(at, "must be an object, got " + shown(*config));
            for (const auto& [key, value] : items(*config)) {
                const Path path{&at, key, -1, true};
                if (value->kind != Kind::dict) fail(path, "must be an object, got " + shown(*value));
                FrGroupConfig c;
                if (const Node* v = tree_.member(*value, "name")) c.name = string_value(*v, path.field(".name"));
                if (const Node* v = tree_.member(*value, "desc")) c.desc = string_value(*v, path.field(".desc"));
                if (const Node* ranks = tree_.member(*value, "ranks"))
                    c.ranks = read_ranks(*ranks, path.field(".ranks"));
                out.pg_config.emplace(std::string(key), std::move(c));
            }
        }
        if (const Node* status = tree_.member(document, "pg_status")) {
            const Path at{nullptr, "pg_status"};
            if (status->kind != Kind::dict) fail(at, "must be an object, got " + shown(*status));
            for (const auto& [key, value] : items(*status)) {
                const Path path{&at, key, -1, true};
                if (value->kind != Kind::dict) fail(path, "must be an object, got " + shown(*value));
                FrGroupStatus s;
                for (const auto& [name, field] : {std::pair{".last_enqueued_collective", &s.last_enqueued},
                                                  std::pair{".last_started_collective", &s.last_started},
                                                  std::pair{".last_completed_collective", &s.last_completed}})
                    if (const Node* v = tree_.member(*value, std::string_view(name).substr(1)))
                        *field = as_counter(*v, path.field(name));
                out.pg_status.emplace(std::string(key), s);
            }
        }
        if (const Node* entries = tree_.member(document, "entries")) {
            const Path at{nullptr, "entries"};
            if (entries->kind != Kind::list) fail(at, "must be a list, got " + shown(*entries));
            out.entries.reserve(entries->count);
            std::int64_t i = 0;
            tree_.each(*entries, [&](std::uint32_t e) { out.entries.push_back(entry(tree_.nodes[e], at.at(i++))); });
        }
    }

private:
    using Field = detail::FrField;
    static constexpr int field_count = detail::fr_field_count;
    static constexpr const std::string_view* field_names = detail::fr_field_names;

    // A key's field, remembered by its node: torch's pickle stores each key once and fetches it for every entry.
    int key_field(std::uint32_t index, const Node& key) {
        if (index >= fields_.size()) fields_.resize(tree_.nodes.size(), -2);
        if (fields_[index] == -2) fields_[index] = static_cast<std::int8_t>(detail::fr_field_of(key.text()));
        return fields_[index];
    }

    // Shapes and dtypes into the scratch op, whose vectors keep their capacity from entry to entry.
    void read_shapes(const Node& v, const Path& path, std::vector<Shape>& out) {
        if (v.kind != Kind::list) fail(path, "must be a list of shapes, got " + shown(v));
        std::size_t n = 0;
        std::int64_t i = 0;
        tree_.each(v, [&](std::uint32_t s) {
            const Node& shape = tree_.nodes[s];
            const Path p = path.at(i++);
            if (shape.kind != Kind::list) fail(p, "must be a list of integers, got " + shown(shape));
            if (n == out.size()) out.emplace_back();
            Shape& dims = out[n++];
            dims.clear();
            std::int64_t k = 0;
            tree_.each(shape, [&](std::uint32_t d) { dims.push_back(as_int(tree_.nodes[d], p.at(k++))); });
        });
        out.resize(n);
    }

    void read_strings(const Node& v, const Path& path, std::vector<std::string>& out) {
        if (v.kind != Kind::list) fail(path, "must be a list of strings, got " + shown(v));
        std::size_t n = 0;
        std::int64_t i = 0;
        std::string scratch;
        tree_.each(v, [&](std::uint32_t s) {
            const std::string_view text = as_string(tree_.nodes[s], path.at(i++), scratch);
            if (n == out.size()) out.emplace_back();
            out[n++].assign(text);
        });
        out.resize(n);
    }

    // Frames are checked (a wrong type is an error naming it) but not kept. torch's pickle writes each distinct
    // frame once and refers to it after, so a frame already checked (the same children) is not checked again.
    void check_frames(const Node& v, const Path& path) {
        if (v.kind != Kind::list) fail(path, "must be a list, got " + shown(v));
        std::int64_t k = 0;
        tree_.each(v, [&](std::uint32_t f) {
            const Node& frame = tree_.nodes[f];
            const std::int64_t index = k++;
            if (frame.kind == Kind::dict && frame.head != detail::no_cell) {
                if (frame.head >= checked_.size())
                    checked_.resize(std::max<std::size_t>(frame.head + 1, checked_.size() * 2));
                if (checked_[frame.head] == frame.count + 1) return;
            }
            const Path p = path.at(index);
            if (frame.kind != Kind::dict) fail(p, "must be an object, got " + shown(frame));
            std::string scratch;
            if (const Node* n = tree_.member(frame, "name")) (void)as_string(*n, p.field(".name"), scratch);
            if (const Node* n = tree_.member(frame, "filename")) (void)as_string(*n, p.field(".filename"), scratch);
            if (const Node* n = tree_.member(frame, "line")) (void)as_int(*n, p.field(".line"));
            if (frame.head != detail::no_cell) checked_[frame.head] = frame.count + 1;
        });
    }

    FrEntry entry(const Node& e, const Path& path) {
        using enum detail::FrField;
        if (e.kind != Kind::dict) fail(path, "must be an object, got " + shown(e));
        const Node* slot[field_count] = {};
        bool is_key = true;
        int field = -1;
        tree_.each(e, [&](std::uint32_t child) {
            const Node& n = tree_.nodes[child];
            if (is_key)
                field = key_field(child, n);
            else if (field >= 0)
                slot[field] = &n;  // the last of equal keys, as a dict keeps
            is_key = !is_key;
        });
        for (auto& s : slot)
            if (s && s->kind == Kind::null) s = nullptr;  // None / null: as if absent
        const auto at = [&](Field f) { return path.field(field_names[f]); };
        const auto integer = [&](Field f, std::int64_t fallback) {
            return slot[f] ? as_int(*slot[f], at(f)) : fallback;
        };

        FrEntry out;
        out.record_id = integer(fr_record_id, -1);
        (void)integer(fr_pg_id, -1);
        const Node* pg = slot[fr_process_group];
        if (!pg) fail(at(fr_process_group), "is missing");
        if (pg->kind != Kind::list || pg->count != 2)
            fail(at(fr_process_group), "must be (name, desc), got " + shown(*pg));
        const Node& pg_name = tree_.nodes[tree_.cells[pg->head].node];
        const Node& pg_desc = tree_.nodes[tree_.cells[tree_.cells[pg->head].next].node];
        std::string name_scratch, desc_scratch;
        const std::string_view name = as_string(pg_name, at(fr_process_group).at(0), name_scratch);
        const std::string_view desc = as_string(pg_desc, at(fr_process_group).at(1), desc_scratch);
        out.group = interner_.group(name, desc);
        if (!slot[fr_collective_seq_id]) fail(at(fr_collective_seq_id), "is missing");
        out.collective_seq_id = as_int(*slot[fr_collective_seq_id], at(fr_collective_seq_id));
        (void)integer(fr_p2p_seq_id, 0);
        (void)integer(fr_op_id, 0);
        if (!slot[fr_profiling_name]) fail(at(fr_profiling_name), "is missing");
        std::string scratch;
        scratch_op_.profiling_name = as_string(*slot[fr_profiling_name], at(fr_profiling_name), scratch);
        out.time_created_ns = integer(fr_time_created_ns, 0);
        FrOp& op_read = scratch_op_;
        if (slot[fr_input_sizes])
            read_shapes(*slot[fr_input_sizes], at(fr_input_sizes), op_read.input_sizes);
        else
            op_read.input_sizes.clear();
        if (slot[fr_output_sizes])
            read_shapes(*slot[fr_output_sizes], at(fr_output_sizes), op_read.output_sizes);
        else
            op_read.output_sizes.clear();
        if (slot[fr_input_dtypes])
            read_strings(*slot[fr_input_dtypes], at(fr_input_dtypes), op_read.input_dtypes);
        else
            op_read.input_dtypes.clear();
        if (slot[fr_output_dtypes])
            read_strings(*slot[fr_output_dtypes], at(fr_output_dtypes), op_read.output_dtypes);
        else
            op_read.output_dtypes.clear();
        out.op = interner_.op(scratch_op_);
        out.state_text =
            interner_.state(slot[fr_state] ? as_string(*slot[fr_state], at(fr_state), scratch) : std::string_view());
        // JSON dumps write 0 where pickle writes None: both mean "not discovered".
        out.time_discovered_started_ns = integer(fr_time_discovered_started_ns, 0);
        out.time_discovered_completed_ns = integer(fr_time_discovered_completed_ns, 0);
        if (slot[fr_retired]) out.retired = as_bool(*slot[fr_retired], at(fr_retired));
        (void)integer(fr_timeout_ms, 0);
        if (slot[fr_is_p2p]) out.is_p2p = as_bool(*slot[fr_is_p2p], at(fr_is_p2p));
        if (const Node* v = slot[fr_duration_ms]; v && !is_integer(*v) && v->kind != Kind::real)
            fail(at(fr_duration_ms), "must be a number, got " + shown(*v));
        if (slot[fr_frames]) check_frames(*slot[fr_frames], at(fr_frames));
        if (slot[fr_thread_id]) (void)as_string(*slot[fr_thread_id], at(fr_thread_id), scratch);
        if (slot[fr_thread_name]) (void)as_string(*slot[fr_thread_name], at(fr_thread_name), scratch);
        return out;
    }

    const ValueTree& tree_;
    detail::FrInterner interner_;
    FrShared* shared_;
    FrOp scratch_op_;
    std::vector<std::int8_t> fields_;     // by a key's node: its field, -1 for none, -2 not looked up yet
    std::vector<std::uint32_t> checked_;  // by a frame's first cell: its child count + 1 once checked
};

Expected<FrDump> convert(const ValueTree& tree, const Node& document, std::string file, std::string format,
                         FrShared* shared) {
    auto pool = std::make_shared<detail::FrPool>();
    Converter converter(tree, *pool, shared);
    if (document.kind != Kind::dict)
        return Error(ErrorType::value_error, file + ": the dump must be an object, got " + converter.shown(document));
    FrDump dump;
    dump.file = file;
    dump.format = std::move(format);
    if (const auto rank = rank_from_file_name(file)) dump.rank = *rank;
    try {
        converter.dump(document, dump);
    } catch (const FieldError& e) {
        return Error(ErrorType::value_error, file + ": " + e.path + " " + e.what);
    }
    dump.pool = std::move(pool);
    return dump;
}
}  // namespace

std::string_view FrEntry::collective() const {
    const std::string_view name = profiling_name();
    const std::size_t colon = name.find(':');
    return colon == std::string_view::npos ? name : name.substr(colon + 1);
}

std::vector<const FrGroupName*> FrDump::groups() const {
    std::vector<const FrGroupName*> out;
    if (pool)
        for (const auto& g : pool->groups) out.push_back(&g);
    return out;
}

std::vector<const FrOp*> FrDump::ops() const {
    std::vector<const FrOp*> out;
    if (pool)
        for (const auto& o : pool->ops) out.push_back(&o);
    return out;
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

Expected<FrDump> read_fr_dump(std::string_view bytes, std::string file, FrShared* shared) {
    // A pickle of the shape torch writes is decoded straight into records; anything else, and every error, is the
    // generic reader's.
    if (!bytes.empty() && static_cast<unsigned char>(bytes[0]) == 0x80)
        if (auto dump = detail::read_fr_dump_fast(bytes, file, shared)) return std::move(*dump);
    return detail::read_fr_dump_generic(bytes, std::move(file), shared);
}

std::optional<FrDump> detail::read_fr_dump_fast(std::string_view bytes, std::string file, FrShared* shared) {
    auto pool = std::make_shared<detail::FrPool>();
    detail::FrInterner interner(*pool);
    FrDump dump;
    if (!detail::read_fr_pickle_fast(bytes, shared, interner, dump)) return std::nullopt;
    dump.file = std::move(file);
    dump.format = "pickle";
    if (const auto rank = rank_from_file_name(dump.file)) dump.rank = *rank;
    dump.pool = std::move(pool);
    return dump;
}

Expected<FrDump> detail::read_fr_dump_generic(std::string_view bytes, std::string file, FrShared* shared) {
    std::size_t first = 0;
    while (first < bytes.size() &&
           (bytes[first] == ' ' || bytes[first] == '\n' || bytes[first] == '\r' || bytes[first] == '\t'))
        ++first;
    if (first == bytes.size()) return Error(ErrorType::value_error, file + ": empty file (no Flight Recorder dump)");
    // The tree's buffers stay with the thread from one dump to the next (a job's dumps are thousands of files of
    // about one size): growing them anew for each costs more in page faults than reading the file. Buffers past
    // 256 MiB (one unusually large document) are let go.
    thread_local ValueTree scratch;
    struct Release {
        ValueTree& tree;
        ~Release() {
            if (tree.capacity_bytes() > (std::size_t{256} << 20))
                tree = ValueTree();
            else
                tree.clear();
        }
    } release{scratch};
    ValueTree& tree = scratch;
    tree.clear();
    std::uint32_t root = 0;
    if (bytes[first] == '{') {
        // The fast cursor takes well-formed dumps; anything it does not take is read by nlohmann, whose error
        // (or, for the rare valid text the cursor leaves to it, whose document) is what the reader reports.
        if (!detail::parse_json_fast(bytes, tree, root)) {
            nlohmann::json document;
            try {
                document = parse_json_throwing(bytes);
            } catch (const JsonTooDeep& e) {
                return Error(ErrorType::value_error, file + ": " + e.what());
            } catch (const nlohmann::json::parse_error& e) {
                return Error(ErrorType::value_error,
                             file + " at byte " + std::to_string(e.byte > 0 ? e.byte - 1 : 0) + ": not valid JSON");
            } catch (const nlohmann::json::out_of_range&) {  // a number beyond a double's range (out_of_range.406)
                return Error(ErrorType::value_error, file + ": not valid JSON: a number is out of range");
            }
            tree.clear();
            root = detail::tree_from_json(document, tree);
        }
        return convert(tree, tree.nodes[root], std::move(file), "json", shared);
    }
    try {
        root = detail::read_pickle_tree(bytes, file, PickleLimits{}, tree);
    } catch (const ValueError& e) {
        return Error(e);
    }
    return convert(tree, tree.nodes[root], std::move(file), "pickle", shared);
}

}  // namespace meshscope::records
