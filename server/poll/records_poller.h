// RecordsPoller: what `meshscope serve --ras` and `--torch-debug` share (hook-free live mode, docs/records-live.md).
// One thread per source reads it every interval (a WorkerThread: a read asked for while one waits is merged into it),
// turns the read into records (the caller's Read, on that thread), and puts them into a job exactly as
// `meshscope import` does (Collector::submit_records: stored, replacing the job's last import, then in the
// monitor). A source that cannot be read is one finding of the job (the caller's Unreadable, with the client's
// reason), replaced by the records once it answers; stderr says it once per change. Stopping sets the RasStop every
// wait of Read polls beside its socket, so a read in progress ends at once and tells the job nothing.
//
//   server::RecordsPoller poller(collector, {.job = "live", .thread_name = "ms-ras", .source = "NCCL RAS",
//                                            .where = "node3:28028"},
//                                [&](bool in_turn, const ras::RasStop& stop) { return read_and_diagnose(stop); },
//                                [](const std::string& reason) { return unreadable_finding(reason); });
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "meshscope/monitor/finding.h"
#include "meshscope/monitor/records_import.h"
#include "ras/ras_client.h"
#include "worker_thread.h"

namespace meshscope::server {

class Collector;

struct RecordsPollerOptions {
    std::string job;          // a valid job name
    std::string thread_name;  // "ms-ras", "ms-torch-debug"
    std::string source;       // what stderr calls the source: "NCCL RAS", "torch's debug server"
    std::string where;        // host:port, as the client names it
    std::string diagnosis;    // what stderr calls a refused import: "the RAS diagnosis"
    std::chrono::milliseconds interval{5000};
    std::int64_t world = 0;  // the world known before any read (the plan's); 0: none
};

class RecordsPoller {
public:
    // One read on the poller's thread: the records to put into the job; every wait of it polls stop beside its
    // socket. ras::RasClientStopped: the collector stops (nothing is told); any other std::exception: the source
    // cannot be read, its what() the reason.
    using Read = std::function<RecordsImport(bool in_turn, const ras::RasStop& stop)>;
    using Unreadable = std::function<Finding(const std::string& reason)>;

    // Reads at once, then every interval. read and unreadable run on the poller's thread only.
    RecordsPoller(Collector& collector, RecordsPollerOptions options, Read read, Unreadable unreadable);
    // Stops: a read in progress ends at once (its waits poll stop()); an import handed over still lands.
    ~RecordsPoller();
    RecordsPoller(const RecordsPoller&) = delete;
    RecordsPoller& operator=(const RecordsPoller&) = delete;

    // A read now, out of turn (in_turn false), beside the interval's; one waits at most (a burst reads once).
    void read_now(bool in_turn = false);
    // Ends every wait given this stop, from any thread; the destructor does it too.
    void stop_waits() noexcept { stop_.stop(); }
    [[nodiscard]] const ras::RasStop& stop() const noexcept { return stop_; }
    [[nodiscard]] const RecordsPollerOptions& options() const noexcept { return options_; }

private:
    struct Read1 {
        bool in_turn = true;
    };
    void poll(bool in_turn);

    Collector& collector_;
    const RecordsPollerOptions options_;
    Read read_;
    Unreadable unreadable_;
    std::optional<std::string> last_error_;  // the thread's: the last read's failure, told once on stderr
    std::int64_t world_ = 0;                 // the thread's: the world the plan, else the last read, establishes
    // An import handed to the collector and not yet answered: a read meanwhile hands over nothing (a collector
    // that sheds load is not queued more).
    std::shared_ptr<std::atomic<bool>> in_flight_ = std::make_shared<std::atomic<bool>>(false);
    ras::RasStop stop_;
    std::unique_ptr<net::WorkerThread<Read1>> thread_;
};

}  // namespace meshscope::server
