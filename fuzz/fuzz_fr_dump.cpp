// libFuzzer target: Flight Recorder dumps (core/records/flight_recorder.h): arbitrary bytes as a pickle (the
// restricted reader) or JSON. A refusal names the file; an accepted dump is diagnosed against a small plan. A
// pickle the decoder of torch's shape takes must read the same with the generic reader (same header, entries,
// groups and ops); read_fr_dump tries that decoder first, so every pickle input runs through it.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "meshscope/records/diagnose.h"
#include "meshscope/records/flight_recorder.h"

namespace {
void check(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "fuzz_fr_dump: invariant broken: %s\n", what);
        std::abort();
    }
}

// The fast decoder's dump against the generic reader's, field by field.
void check_same(const meshscope::records::FrDump& fast, const meshscope::records::FrDump& generic) {
    check(fast.version == generic.version && fast.comm_lib_version == generic.comm_lib_version, "header differs");
    check(fast.pg_config.size() == generic.pg_config.size() && fast.pg_status.size() == generic.pg_status.size(),
          "pg_config or pg_status differs");
    for (const auto& [key, c] : fast.pg_config) {
        const auto it = generic.pg_config.find(key);
        check(it != generic.pg_config.end() && it->second.name == c.name && it->second.desc == c.desc &&
                  *it->second.ranks == *c.ranks,
              "a pg_config entry differs");
    }
    for (const auto& [key, s] : fast.pg_status) {
        const auto it = generic.pg_status.find(key);
        check(it != generic.pg_status.end() && it->second.last_enqueued == s.last_enqueued &&
                  it->second.last_started == s.last_started && it->second.last_completed == s.last_completed,
              "a pg_status entry differs");
    }
    check(fast.groups().size() == generic.groups().size() && fast.ops().size() == generic.ops().size(),
          "the pools differ");
    check(fast.entries.size() == generic.entries.size(), "the entries differ in number");
    for (std::size_t i = 0; i < fast.entries.size(); ++i) {
        const auto& a = fast.entries[i];
        const auto& b = generic.entries[i];
        check(a.record_id == b.record_id && a.collective_seq_id == b.collective_seq_id &&
                  a.time_created_ns == b.time_created_ns &&
                  a.time_discovered_started_ns == b.time_discovered_started_ns &&
                  a.time_discovered_completed_ns == b.time_discovered_completed_ns && a.retired == b.retired &&
                  a.is_p2p == b.is_p2p && a.group->index == b.group->index && a.pg_name() == b.pg_name() &&
                  a.pg_desc() == b.pg_desc() && a.op->index == b.op->index &&
                  a.profiling_name() == b.profiling_name() && a.input_sizes() == b.input_sizes() &&
                  a.output_sizes() == b.output_sizes() && a.input_dtypes() == b.input_dtypes() &&
                  a.output_dtypes() == b.output_dtypes() && a.state() == b.state(),
              "an entry differs");
    }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    if (const auto fast = meshscope::records::detail::read_fr_dump_fast(bytes, "nccl_trace_rank_3")) {
        const auto generic = meshscope::records::detail::read_fr_dump_generic(bytes, "nccl_trace_rank_3");
        check(generic.has_value(), "the fast decoder took a pickle the generic reader refuses");
        check_same(*fast, *generic);
    }
    auto dump = meshscope::records::read_fr_dump(bytes, "nccl_trace_rank_3");
    if (!dump) {
        check(dump.error().message().rfind("nccl_trace_rank_3", 0) == 0, "an error that does not name the file");
        return 0;
    }
    check(dump->rank == 3, "the rank is not the file name's");
    static const auto plan = meshscope::Plan::make(meshscope::Topology::make(8, 1, 4).value(), 8).value();
    meshscope::records::RecordSet set;
    set.dumps.push_back(std::move(dump).value());
    (void)meshscope::records::diagnose(set, &plan);
    (void)meshscope::records::diagnose(set, nullptr);
    return 0;
}
