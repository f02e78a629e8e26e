// TorchDebugPoller: hook-free live mode from torch itself. The collector (`meshscope serve --torch-debug HOST:PORT`)
// reads the front end of torch's debug server (torch.distributed.debug.start_debug_server, on rank 0) every interval
// on its own thread (ms-torch-debug): `GET /fr_trace_json?backend=B`, one bounded HTTP/1.0 request (http_get), the
// page's per-rank Flight Recorder JSON taken out of its HTML (read_page) and read by core's reader (read_fr_dump),
// diagnosed as `meshscope diagnose` diagnoses the same dumps, and put into a job exactly as `meshscope import` does,
// through the RecordsPoller that `serve --ras` uses too. Ranks a collective waits for (collective_stuck) and groups
// no member ran (communicator_not_formed) are findings once two reads in a row show every rank's Flight Recorder
// unchanged (the stall rule: between two reads of a healthy job, ranks are out of step for a moment). A rank the
// front end could not fetch, or whose dump cannot be read, is a finding of its own; a front end that cannot be read
// is one finding of the job (torch_debug_unreadable_finding).
//
//   server::TorchDebugPoller poller(collector, {.address = "node0:25999", .job = "torch@node0:25999"});
//   // ... until the collector stops; the destructor ends a read in progress at once
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "meshscope/mesh/plan.h"
#include "meshscope/monitor/finding.h"
#include "poll/records_poller.h"

namespace meshscope::server {

class Collector;

struct TorchDebugPollerOptions {
    std::string address;           // HOST[:PORT] (torch's default port 25999 when none; split_torch_debug_address)
    std::string job;               // a valid job name
    std::string backend = "gloo";  // the Flight Recorder the front end reads (?backend=): gloo, nccl, ...
    std::chrono::milliseconds interval{5000};
    std::chrono::milliseconds timeout{30000};  // the connection; then the whole page
    std::size_t max_reply = std::size_t{256} << 20;
    std::optional<Plan> plan;  // where the groups are placed; none: diagnose proposes one
};

// HOST[:PORT], [V6]:PORT into host and port (25999, torch's default, when none); the reason when it is none of these.
[[nodiscard]] std::optional<std::string> split_torch_debug_address(const std::string& text, std::string& host,
                                                                   std::string& port);

// The job name an address gets when none is given: "torch@" + the address, each character a job name cannot hold
// as '-'.
[[nodiscard]] std::string default_torch_debug_job(const std::string& address);

// The finding a job shows while the front end cannot be read: peer_unreachable, no ranks, the client's reason.
[[nodiscard]] Finding torch_debug_unreadable_finding(const std::string& where, const std::string& reason);

class TorchDebugPoller {
public:
    // Starts reading at once. options.address must be valid (split_torch_debug_address).
    TorchDebugPoller(Collector& collector, TorchDebugPollerOptions options);
    ~TorchDebugPoller();  // a read in progress ends at once; an import handed over still lands
    TorchDebugPoller(const TorchDebugPoller&) = delete;
    TorchDebugPoller& operator=(const TorchDebugPoller&) = delete;

    [[nodiscard]] const TorchDebugPollerOptions& options() const noexcept { return options_; }

private:
    RecordsImport read(const ras::RasStop& stop);  // on the poller's thread

    const TorchDebugPollerOptions options_;
    std::string host_, port_, where_, path_;
    // the poller thread's: each rank's Flight Recorder progress at the last read (rank, entries, last entry's seq
    // and creation time), for the stall rule
    std::optional<std::vector<std::vector<std::int64_t>>> last_progress_;
    std::unique_ptr<RecordsPoller> poller_;
};

}  // namespace meshscope::server
