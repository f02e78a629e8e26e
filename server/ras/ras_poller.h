// RasPoller: hook-free live mode. The collector (`meshscope serve --ras HOST:PORT`) reads a running job's NCCL RAS
// status every interval on its own thread (ms-ras, a RecordsPoller as `--torch-debug`'s), with RAS's own text protocol
// (CLIENT PROTOCOL, SET FORMAT json, VERBOSE STATUS; RasClient, every exchange bounded by a timeout and a byte cap),
// diagnoses it as `meshscope ras` does, and puts the diagnosis into a job exactly as `meshscope import` does
// (Collector::submit_records: stored, replacing the job's last import, then in the monitor); a communicator's ranks
// behind are a finding once they stall (records::RasPollDiagnosis, the stall rule). Beside the polls, a MONITOR
// connection (thread ms-ras-monitor) asks for a poll at once at each lifecycle event (PEER_DEAD, ...). The Live pages
// show the job as any other; a RAS that cannot be read is one finding of the job (ras_unreadable_finding), replaced by
// the diagnosis once RAS answers.
//
//   server::RasPoller poller(collector, {.address = "127.0.0.1:28028", .job = "ras@127.0.0.1:28028"});
//   // ... until the collector stops; the destructor ends a poll or MONITOR wait in progress at once
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "meshscope/mesh/plan.h"
#include "meshscope/monitor/finding.h"
#include "meshscope/records/diagnose.h"
#include "poll/records_poller.h"
#include "ras_client.h"

namespace meshscope::server {

class Collector;

struct RasPollerOptions {
    std::string address;  // HOST[:PORT] as the user wrote it (split_address's forms)
    std::string job;      // a valid job name
    std::chrono::milliseconds interval{5000};
    std::chrono::milliseconds timeout{10000};  // the connection and handshake; then the whole reply
    std::size_t max_reply = std::size_t{64} << 20;
    std::optional<Plan> plan;  // where the communicators are placed; none: diagnose proposes one
    // The MONITOR connection beside the polls: each lifecycle event (PEER_DEAD, ...) polls at once. A connection
    // quiet this long is opened again (a half-open connection to a host gone away cannot hold it).
    bool monitor = true;
    std::chrono::milliseconds monitor_quiet{60000};
};

// The job name a RAS address gets when none is given: "ras@" + the address, each character a job name cannot
// hold as '-' ("[::1]:28028" -> "ras@-::1-:28028").
[[nodiscard]] std::string default_ras_job(const std::string& address);

// The finding a job shows while its RAS cannot be read: peer_unreachable, no ranks, the client's reason.
[[nodiscard]] Finding ras_unreadable_finding(const std::string& where, const std::string& reason);

class RasPoller {
public:
    // Starts polling (and monitoring) at once. options.address must be valid (split_address).
    RasPoller(Collector& collector, RasPollerOptions options);
    // Stops: a poll or MONITOR wait in progress ends at once (RasStop), a name lookup in progress at its end; an
    // import handed over still lands.
    ~RasPoller();
    RasPoller(const RasPoller&) = delete;
    RasPoller& operator=(const RasPoller&) = delete;

    [[nodiscard]] const RasPollerOptions& options() const noexcept { return options_; }

private:
    RecordsImport read(bool in_turn, const ras::RasStop& stop);  // on the poller's thread
    void monitor();                                              // the ms-ras-monitor thread

    const RasPollerOptions options_;
    std::string host_, port_;
    records::RasPollDiagnosis polls_;        // the poller thread's: the stall rule across this job's polls
    std::unique_ptr<RecordsPoller> poller_;  // stopped after monitor_, which asks it for reads
    std::thread monitor_;
};

}  // namespace meshscope::server
