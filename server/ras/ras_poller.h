// RasPoller: hook-free live mode. The collector (`meshscope serve --ras HOST:PORT`) reads a running job's NCCL RAS
// status every interval on its own thread (ms-ras), with RAS's own text protocol (CLIENT PROTOCOL, SET FORMAT json,
// VERBOSE STATUS; RasClient, every exchange bounded by a timeout and a byte cap), diagnoses it as `meshscope ras`
// does, and puts the diagnosis into a job exactly as `meshscope import` does (Collector::submit_records: stored,
// replacing the job's last import, then in the monitor); a communicator's ranks behind are a finding once they
// stall (records::RasPollDiagnosis, the stall rule). Beside the polls, a MONITOR connection (thread
// ms-ras-monitor) asks for a poll at once at each lifecycle event (PEER_DEAD, ...). The Live pages show the job as
// any other; a RAS that cannot be read is one finding of the job (ras_unreadable_finding), replaced by the
// diagnosis once RAS answers.
//
//   server::RasPoller poller(collector, {.address = "127.0.0.1:28028", .job = "ras@127.0.0.1:28028"});
//   // ... until the collector stops; the destructor ends a poll or MONITOR wait in progress at once
#pragma once

#include <atomic>
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
#include "ras_client.h"
#include "worker_thread.h"

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
    struct Poll {
        bool in_turn = true;  // false: a MONITOR event's (RasPollDiagnosis::next)
    };
    void poll(bool in_turn);
    void monitor();  // the ms-ras-monitor thread

    Collector& collector_;
    const RasPollerOptions options_;
    std::string host_, port_;
    std::optional<std::string> last_error_;  // the thread's: the last poll's failure, told once on stderr
    std::int64_t world_ = 0;                 // the thread's: the world the plan, else the last status, establishes
    records::RasPollDiagnosis polls_;        // the thread's: the stall rule across this job's polls
    // An import handed to the collector and not yet answered: a poll meanwhile hands over nothing (a collector
    // that sheds load is not queued more).
    std::shared_ptr<std::atomic<bool>> in_flight_ = std::make_shared<std::atomic<bool>>(false);
    ras::RasStop stop_;                                // ends every wait of both threads
    std::unique_ptr<net::WorkerThread<Poll>> thread_;  // stopped after monitor_, which posts to it
    std::thread monitor_;
};

}  // namespace meshscope::server
