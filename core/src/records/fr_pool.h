// What the two readers of a Flight Recorder pickle share (flight_recorder.cpp: the generic reader's tree turned into
// records; fr_pickle_fast.cpp: the opcodes of the shape torch writes turned into records without values): the
// entry fields, the rank lists' text, and the interning of groups, ops and states into a dump's pool, so that
// both give the same records in the same order.
#pragma once

#include <charconv>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "meshscope/records/flight_recorder.h"

namespace meshscope::records::detail {

// Every group, op and state a dump's entries name, once; a deque keeps the entries' pointers valid as it grows.
struct FrPool {
    std::deque<FrGroupName> groups;
    std::deque<FrOp> ops;
    std::deque<std::string> states;
};

// The fields an entry may have, in the order the generic reader checks them (and so the order of its errors).
enum FrField : std::int8_t {
    fr_record_id,
    fr_pg_id,
    fr_process_group,
    fr_collective_seq_id,
    fr_p2p_seq_id,
    fr_op_id,
    fr_profiling_name,
    fr_time_created_ns,
    fr_input_sizes,
    fr_output_sizes,
    fr_input_dtypes,
    fr_output_dtypes,
    fr_state,
    fr_time_discovered_started_ns,
    fr_time_discovered_completed_ns,
    fr_retired,
    fr_timeout_ms,
    fr_is_p2p,
    fr_duration_ms,
    fr_frames,
    fr_thread_id,
    fr_thread_name,
    fr_field_count
};
// As error paths spell them (".record_id").
inline constexpr std::string_view fr_field_names[fr_field_count] = {".record_id",
                                                                    ".pg_id",
                                                                    ".process_group",
                                                                    ".collective_seq_id",
                                                                    ".p2p_seq_id",
                                                                    ".op_id",
                                                                    ".profiling_name",
                                                                    ".time_created_ns",
                                                                    ".input_sizes",
                                                                    ".output_sizes",
                                                                    ".input_dtypes",
                                                                    ".output_dtypes",
                                                                    ".state",
                                                                    ".time_discovered_started_ns",
                                                                    ".time_discovered_completed_ns",
                                                                    ".retired",
                                                                    ".timeout_ms",
                                                                    ".is_p2p",
                                                                    ".duration_ms",
                                                                    ".frames",
                                                                    ".thread_id",
                                                                    ".thread_name"};

// A key's field, or -1 for a key no entry field has.
inline int fr_field_of(std::string_view key) {
    for (int f = 0; f < fr_field_count; ++f)
        if (fr_field_names[f].size() == key.size() + 1 && fr_field_names[f].substr(1) == key) return f;
    return -1;
}

// "[0, 1, 2]" as torch writes pg_config's ranks; false where the text is not such a list.
inline bool parse_rank_list(std::string_view rest, std::vector<std::int64_t>& out) {
    if (rest.starts_with('[')) rest.remove_prefix(1);
    if (rest.ends_with(']')) rest.remove_suffix(1);
    while (!rest.empty()) {
        while (!rest.empty() && (rest.front() == ' ' || rest.front() == ',')) rest.remove_prefix(1);
        if (rest.empty()) break;
        std::int64_t r = 0;
        const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), r);
        if (ec != std::errc()) return false;
        out.push_back(r);
        rest.remove_prefix(static_cast<std::size_t>(end - rest.data()));
    }
    return true;
}

// Each distinct group, op and state once in the pool, in the order first asked for.
class FrInterner {
public:
    explicit FrInterner(FrPool& pool) : pool_(pool) {}

    const FrGroupName* group(std::string_view name, std::string_view desc) {
        if (last_group_ && last_group_->name == name && last_group_->desc == desc) return last_group_;
        key_.clear();
        key_text(name);
        key_text(desc);
        auto it = groups_.find(key_);
        if (it == groups_.end()) {
            pool_.groups.push_back(
                {std::string(name), std::string(desc), static_cast<std::uint32_t>(pool_.groups.size())});
            it = groups_.emplace(key_, &pool_.groups.back()).first;
        }
        return last_group_ = it->second;
    }

    // The op read (profiling name, sizes, dtypes; its index is ignored).
    const FrOp* op(const FrOp& read) {
        key_.clear();
        key_text(read.profiling_name);
        for (const auto* shapes : {&read.input_sizes, &read.output_sizes}) {
            key_int(static_cast<std::int64_t>(shapes->size()));
            for (const auto& s : *shapes) {
                key_int(static_cast<std::int64_t>(s.size()));
                for (const auto d : s) key_int(d);
            }
        }
        for (const auto* names : {&read.input_dtypes, &read.output_dtypes}) {
            key_int(static_cast<std::int64_t>(names->size()));
            for (const auto& n : *names) key_text(n);
        }
        auto it = ops_.find(key_);
        if (it == ops_.end()) {
            pool_.ops.push_back(read);
            pool_.ops.back().index = static_cast<std::uint32_t>(pool_.ops.size() - 1);
            it = ops_.emplace(key_, &pool_.ops.back()).first;
        }
        return it->second;
    }

    const std::string* state(std::string_view text) {
        if (last_state_ && *last_state_ == text) return last_state_;
        key_.assign(text);
        auto it = states_.find(key_);
        if (it == states_.end()) {
            pool_.states.emplace_back(text);
            it = states_.emplace(key_, &pool_.states.back()).first;
        }
        return last_state_ = it->second;
    }

private:
    void key_int(std::int64_t v) { key_.append(reinterpret_cast<const char*>(&v), sizeof v); }
    void key_text(std::string_view text) {
        key_int(static_cast<std::int64_t>(text.size()));
        key_ += text;
    }

    FrPool& pool_;
    std::string key_;
    const FrGroupName* last_group_ = nullptr;
    std::unordered_map<std::string, const FrGroupName*> groups_;
    std::unordered_map<std::string, const FrOp*> ops_;
    const std::string* last_state_ = nullptr;
    std::unordered_map<std::string, const std::string*> states_;
};

// The pickle of the shape torch writes read straight into `out`'s version, pg_config, pg_status and entries (the
// caller names the file, format and rank), interning into `interner`; false, with `out` to be dropped, where the
// bytes are anything else: wrong, or a shape this decoder leaves to the generic reader, whose result or error
// then stands (fr_pickle_fast.cpp lists what it takes).
bool read_fr_pickle_fast(std::string_view bytes, FrShared* shared, FrInterner& interner, FrDump& out);

}  // namespace meshscope::records::detail
