// Event: one report from one rank, protocol "meshscope.event/1" (docs/protocol.md). The ONE place that
// parses and validates events: the HTTP API, replay, import and the tests all go through parse_events /
// event_from_json, and every stored or streamed event is written by to_json.
//
// Usage:
//   auto events = meshscope::parse_events(body);          // one object, a JSON array, or NDJSON
//   if (!events) return http_400(events.error().message());  // "event 2: field \"rank\" must be ..."
//   for (const meshscope::Event& e : *events) monitor.ingest(e, now_seconds);
//   std::string line = meshscope::to_json(e).dump();      // storage, export JSONL, WebSocket feed
//
// Error messages are exact API text (tested). Every message about one event starts with
// `event {index}: ` where index counts events in the body from 0 (the array index, or the NDJSON line's
// position among non-blank lines); messages about a field name it in double quotes, with dots for nested
// fields: `event 0: field "topology.ep" must be a positive integer`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "meshscope/mesh/error.h"
#include "meshscope/monitor/group.h"

namespace meshscope {

inline constexpr std::string_view event_schema = "meshscope.event/1";

// The steps a rank goes through, in the order a healthy rank reports them.
enum class Phase { launch, process_group, device_mesh, parallel_state, communicator, ready, heartbeat, error, exit };
inline constexpr std::size_t phase_count = 9;
enum class Status { started, done, failed };

[[nodiscard]] std::string_view to_string(Phase phase) noexcept;
[[nodiscard]] std::string_view to_string(Status status) noexcept;
[[nodiscard]] std::optional<Phase> parse_phase(std::string_view text) noexcept;
[[nodiscard]] std::optional<Status> parse_status(std::string_view text) noexcept;
[[nodiscard]] constexpr std::size_t index_of(Phase phase) noexcept {
    return static_cast<std::size_t>(phase);
}

// The (dp, cp, ep) a rank says it runs with, and LlamaFactory's model mesh (mp_replicate, mp_shard) when the
// rank reports it (both or neither). Unlike Topology it is not validated: a rank reporting an impossible
// topology is exactly what the monitor must show.
struct ReportedTopology {
    std::int64_t dp = 1;
    std::int64_t cp = 1;
    std::int64_t ep = 1;
    std::optional<std::int64_t> mp_replicate = std::nullopt;
    std::optional<std::int64_t> mp_shard = std::nullopt;
    [[nodiscard]] std::string tuple_string() const;  // "(16, 1, 2)", as FSDPTurbo prints it (no model mesh)
    [[nodiscard]] bool has_model_mesh() const noexcept { return mp_replicate && mp_shard; }
    friend bool operator==(const ReportedTopology&, const ReportedTopology&) = default;
    friend auto operator<=>(const ReportedTopology&, const ReportedTopology&) = default;
};

// One device mesh as the rank built it: init_device_mesh(shape, dim_names), named "data" or "expert".
struct ReportedMesh {
    std::string name;
    std::vector<std::string> dim_names;
    std::vector<std::int64_t> shape;
    friend bool operator==(const ReportedMesh&, const ReportedMesh&) = default;
};

struct ReportedError {
    std::string type;     // "RuntimeError"; may be empty
    std::string message;  // may be empty
    friend bool operator==(const ReportedError&, const ReportedError&) = default;
};

// One communicator (the rank's group along one mesh dim) as meshscope-probe built and measured it
// (docs/probe.md). The probe's `communicator` events carry them; the monitor compares groups of one dim.
enum class CommunicatorState { formed, not_formed, wrong_result, failed };
[[nodiscard]] std::string_view to_string(CommunicatorState state) noexcept;
[[nodiscard]] std::optional<CommunicatorState> parse_communicator_state(std::string_view text) noexcept;

struct CollectiveResult {
    std::string collective;  // "all_to_all", "all_gather", "reduce_scatter", "all_reduce"
    std::int64_t bytes = 0;  // each rank's input buffer
    double seconds = 0;      // one call, averaged over the iterations
    double algbw = 0;        // GB/s, nccl-tests' definition
    double busbw = 0;        // GB/s, nccl-tests' definition
    friend bool operator==(const CollectiveResult&, const CollectiveResult&) = default;
};

struct ReportedCommunicator {
    std::string dim;                    // "ep"
    std::int64_t index = 0;             // where the group comes in its dim's creation order
    std::vector<std::int64_t> members;  // by coordinate along the dim
    CommunicatorState state = CommunicatorState::formed;
    std::optional<double> create_seconds;  // until the communicator was usable
    std::vector<CollectiveResult> results;
    std::vector<std::int64_t> missing;  // not_formed: the members that never joined
    std::optional<std::string> error;   // what went wrong, one line
    friend bool operator==(const ReportedCommunicator&, const ReportedCommunicator&) = default;
};

struct Event {
    // required
    std::string job;
    std::int64_t rank = 0;
    std::int64_t world_size = 1;
    Phase phase = Phase::launch;
    Status status = Status::started;
    // optional
    std::optional<double> ts;  // seconds on the sender's clock
    std::optional<std::string> host;
    std::optional<std::int64_t> pid;
    std::optional<std::int64_t> local_rank;
    std::optional<std::string> device;
    std::optional<std::string> device_uuid;
    std::optional<ReportedTopology> topology;
    std::optional<ReportedMesh> mesh;
    // dim name -> the members of this rank's own group along that dim, as the rank reported them (a set).
    std::map<std::string, Group> groups;
    // dim name (each one also in `groups`) -> where that group comes in its dim's creation order, from 0: the
    // new_group calls the rank made for that dim, member or not (docs/protocol.md, "Creation order").
    std::map<std::string, std::int64_t> creation_index;
    std::optional<ReportedError> error;
    std::optional<nlohmann::json> plan;               // a "meshscope.plan/1" document the job declares as expected
    std::vector<ReportedCommunicator> communicators;  // meshscope-probe's groups (phase communicator)

    friend bool operator==(const Event&, const Event&) = default;
};

// Bounds that keep one bad client from costing the collector memory or time.
struct EventLimits {
    std::int64_t max_world_size = std::int64_t{1} << 20;  // 1,048,576 ranks
    std::size_t max_job_length = 128;
    std::size_t max_string_length = 256;    // host, device, device_uuid, mesh and dim names, error.type
    std::size_t max_message_length = 8192;  // error.message
    std::size_t max_mesh_dims = 8;
    std::size_t max_group_dims = 16;
    std::size_t max_events = 100000;     // per body
    std::size_t max_communicators = 64;  // per event
    std::size_t max_results = 64;        // per communicator
};

// Whether `job` is a name an event may carry (1 to max_job_length characters of A-Z, a-z, 0-9 and ._-:@+=).
[[nodiscard]] bool valid_job_name(std::string_view job, const EventLimits& limits = {}) noexcept;

// `text` made a job name: each character a job name cannot hold as '-', cut to max_job_length ("ras@[::1]:28028"
// -> "ras@-::1-:28028"). Empty stays empty: the caller names it.
[[nodiscard]] std::string job_name_from(std::string text, const EventLimits& limits = {});

// Parses a request body: one JSON object, a JSON array of objects, or NDJSON (one object per line; blank
// lines ignored). All or nothing: the first bad event makes the whole body an error (ValueError).
[[nodiscard]] Expected<std::vector<Event>> parse_events(std::string_view body, const EventLimits& limits = {});

// Validates one already-parsed JSON value as an event. Messages have no `event N: ` prefix
// (`field "rank" must be a non-negative integer`); parse_events adds it.
[[nodiscard]] Expected<Event> event_from_json(const nlohmann::json& value, const EventLimits& limits = {});

// {"dp", "cp", "ep"} and, when reported, {"mp_replicate", "mp_shard"}: the event's and the rank state's form.
[[nodiscard]] nlohmann::json to_json(const ReportedTopology& topology);

// The event as protocol JSON, with "schema": "meshscope.event/1" and only the optional fields it has.
// event_from_json(to_json(e)) == e.
[[nodiscard]] nlohmann::json to_json(const Event& event);

// The "communicators" field alone (communicator_json.cpp): read with the event's limits, and written back.
[[nodiscard]] Expected<std::vector<ReportedCommunicator>> read_communicators(const nlohmann::json& value,
                                                                             std::int64_t world_size,
                                                                             const EventLimits& limits = {});
[[nodiscard]] nlohmann::json to_json(const ReportedCommunicator& communicator);

}  // namespace meshscope
