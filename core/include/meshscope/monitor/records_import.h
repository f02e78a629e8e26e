// A job's records put into a collector: meshscope.records/1, the document `meshscope import` posts to
// POST /api/v1/jobs/{job}/records (docs/records.md, "Into a collector"). It holds what `meshscope diagnose` found,
// in the monitor's vocabulary: the findings, each with the records it comes from (file, line, RAS host), and the
// ranks the records name with their host and pid. The collector's monitor shows them beside the hook's
// (Monitor::import_records).
//
//   {"format": "meshscope.records/1",
//    "findings": [{"kind": "collective_stuck", "ranks": [6], "message": "...", "fix": "...",
//                  "sources": ["fr/nccl_trace_rank_6.json", "node0.41000:12"]}],
//    "ranks": [{"rank": 0, "host": "node0", "pid": 41000,
//               "position": {"standing": "waiting", "dim": "ep", "group": 0, "seq": 2, "op": "all_to_all", ...}}],
//    "world_size": 8, "topology": {"dp": 8, "cp": 1, "ep": 4}, "topology_proposed": true,
//    "communicators": [{"name": "0x5ae77eb5ea4ec1ee", "comm_id": "0x5ae77eb5ea4ec1ee", "nranks": 8, "seen": 8,
//                       "state": "formed", "source": "NCCL log", "dim": "world", "index": 0}]}
//
// A rank's position (hang_position.h) is where it stands in the hang the records show; ranks of the world that no
// record names come with the position "no_record" only. topology is the plan the records were placed on, or the one
// proposed from the groups seen (topology_proposed): the Live pages draw the job's grid on it.
//
// records_import_from_json is the one reader: every field is checked with an exact message (the collector's 400).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "meshscope/mesh/error.h"
#include "meshscope/monitor/event.h"
#include "meshscope/monitor/finding.h"
#include "meshscope/monitor/hang_position.h"

namespace meshscope {

inline constexpr std::string_view records_format = "meshscope.records/1";

// A rank the records name, with the process that was it where they say.
struct RecordsRank {
    std::int64_t rank = 0;
    std::optional<std::string> host;
    std::optional<std::int64_t> pid;
    std::optional<HangPosition> position;  // where it stands in the hang the records show
    friend bool operator==(const RecordsRank&, const RecordsRank&) = default;
};

// A communicator the records show (the diagnosis's groups, one per communicator): what GET /metrics writes as
// per-communicator series (docs/collector-metrics.md, "Per-communicator series").
struct RecordsCommunicator {
    // The name the series carry as comm_name: NCCL's commHash spelled as NCCL Inspector spells it ("0x" and lowercase
    // hex digits without leading zeros) where the records give it, else the records' own ("process group 5 (mesh_ep)").
    std::string name;
    std::optional<std::string> comm_id;  // the commHash, so spelled, when the records give it
    std::int64_t nranks = 0;             // the communicator's size
    std::int64_t seen = 0;               // its members the records name
    std::string state = "formed";        // formed, not_formed, stuck or failed (records_communicator_states)
    std::string source;                  // "NCCL log", "NCCL RAS", "Flight Recorder"
    std::string dim;                     // the plan's dim it is ("world" for every rank's), empty when not placed
    std::int64_t index = -1;             // its index along dim; -1 when not placed
    friend bool operator==(const RecordsCommunicator&, const RecordsCommunicator&) = default;
};
inline constexpr std::string_view records_communicator_states[] = {"formed", "not_formed", "stuck", "failed"};

struct RecordsImport {
    std::vector<Finding> findings;  // id left empty: the monitor numbers them records/1, records/2, ...
    std::vector<RecordsRank> ranks;
    // The job's world as the plan given, or the records, establish it (`meshscope diagnose`'s world_size); 0 when
    // the document says none. A job that has only records takes it as its world (Monitor::import_records).
    std::int64_t world_size = 0;
    // The plan's (dp, cp, ep) the records were placed on, or the one proposed from the groups they show.
    std::optional<ReportedTopology> topology;
    bool topology_proposed = false;
    std::vector<RecordsCommunicator> communicators;
    friend bool operator==(const RecordsImport&, const RecordsImport&) = default;
};

// What a document may hold (the collector's bounds; a body is also bounded in bytes by --max-body).
struct RecordsLimits {
    std::size_t max_findings = 4096;
    std::size_t max_ranks = std::size_t{1} << 20;  // also the bound of a rank (as an event's rank)
    std::size_t max_sources = 64;                  // per finding
    std::size_t max_text = 8192;                   // bytes of a message, a fix or a source
    std::size_t max_host = 256;                    // bytes of a host name (an event's host)
    std::size_t max_communicators = 65536;         // the monitor's bound of a job's probed groups too
};

[[nodiscard]] nlohmann::json to_json(const RecordsImport& records);

// ValueError with the field it is about, e.g. `field "findings[0].kind" must be a finding kind
// (verdict, topology_mismatch, ..., peer_unreachable)`. Unknown fields are ignored. A finding's ranks come back sorted.
[[nodiscard]] Expected<RecordsImport> records_import_from_json(const nlohmann::json& document,
                                                               const RecordsLimits& limits = {});
// A request body: "invalid JSON: ..." (nlohmann's words; nesting past max_json_depth refused as such), else
// records_import_from_json's answer.
[[nodiscard]] Expected<RecordsImport> parse_records_import(std::string_view body, const RecordsLimits& limits = {});

}  // namespace meshscope
