// The root cause of a hang, across groups (docs/records-hang.md, "The verdict"). Every source says where each rank
// stands (its Position: the collective it is blocked in, or the last one it completed, or nothing at all); a blocked
// rank waits on the members of its group that never reached its collective. The chains of who waits on whom are
// followed to their ends:
//   - a cycle across groups (rank A waits in X for B, B waits in Y for A): a rank left the common order; the rank
//     whose records went past a collective its peers wait in is named (skipped, called out of order, called another
//     collective);
//   - a rank with no record at all (no dump, no NCCL line, no RAS entry), or one RAS reports dead: it died or hangs
//     outside any collective;
//   - a rank whose last collective every member entered: it hangs outside collectives (compute, the data loader,
//     host code).
// Each end is one Verdict: the rank(s), where to find the process (host, pid), what it did, and every group that
// waits on it. The diagnosis lists it first, as a finding of kind `verdict`, with the per-group findings folded under.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meshscope::records {

// Where one rank stands in a hang, as one source tells it.
struct Position {
    enum class State {
        blocked,    // in a collective (or a communicator's init) that some member of its group never reached
        completed,  // its last collective: every member of the group reached it
        none,       // no record of this rank in this source
    };
    std::int64_t rank = -1;
    State state = State::none;
    std::string source;  // "Flight Recorder", "NCCL log", "NCCL RAS"
    // The group: its place on the plan when it has one (mesh "world" for the default group), else mesh and dim
    // empty and index -1.
    std::string mesh, dim;
    std::int64_t index = -1;
    std::string label;     // "ep group 3 [12, 13, 14, 15]", "default_pg", "communicator commId 0x.. (4 ranks)"
    std::string name;      // "ep group 3", "default_pg", "communicator commId 0x..": what a sentence calls it
    std::string key;       // the group's part of its findings' ids: "ep/3", "world/0", "process group 5 (mesh_ep)"
    std::int64_t seq = 0;  // Flight Recorder's collective seq id; RAS: the number of the collective; init: 0
    std::string op;        // "all_to_all", "init", "AllReduce"
    std::vector<std::int64_t> waits_on;  // blocked: the members that never reached it, sorted
    std::vector<std::string> files;      // the records that say so
};

// A group whose members wait on the verdict's rank, directly or down a chain.
struct WaitingGroup {
    Position at;                         // where they wait (rank: the first of them)
    std::vector<std::int64_t> waiting;   // the members blocked in it, sorted
    std::vector<std::int64_t> waits_on;  // the members they wait on, sorted
};

struct Verdict {
    enum class Cause {
        skipped,           // went past a collective its peers wait in, and on to further ones
        out_of_order,      // called a later collective before the one its peers wait in, which it called after
        other_collective,  // called a collective its peers do not call there
        wait_each_other,   // a cycle in which no one rank left the common order by its records
        no_record,         // no record at all: died or hangs outside any collective
        dead,              // NCCL RAS reports its process dead or unresponsive
        outside,           // its last collective completed: hangs outside collectives (compute, data loader, host)
    };
    Cause cause = Cause::no_record;
    std::string id;                   // "verdict/13", "verdict/12-15"
    std::vector<std::int64_t> ranks;  // the root cause, sorted
    std::optional<std::string> host;  // of ranks.front()'s process, where a record gives it
    std::optional<std::int64_t> pid;
    // skipped, out_of_order, other_collective: the collective its peers wait in; outside: the last it completed
    std::optional<Position> where;
    // skipped, out_of_order, other_collective: where it stands now (what it called instead)
    std::optional<Position> instead;
    std::string how;  // dead: RAS's words ("is dead (NCCL RAS could not reach it for 60 s or more)")
    std::vector<WaitingGroup> waiting;
    std::string sentence;  // "rank 13 skipped ep group 3's all_to_all at seq 2"
    std::vector<std::string> sources;
};

// "skipped", "called_out_of_order", "called_another_collective", "wait_on_each_other", "no_record", "dead",
// "outside_collectives": the JSON's "cause".
[[nodiscard]] std::string_view to_string(Verdict::Cause cause) noexcept;
[[nodiscard]] std::string_view to_string(Position::State state) noexcept;

}  // namespace meshscope::records
