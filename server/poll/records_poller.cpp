#include "records_poller.h"

#include <algorithm>
#include <iostream>

#include <nlohmann/json.hpp>

#include "collector/collector.h"
#include "meshscope/records/diagnose.h"

namespace meshscope::server {

RecordsPoller::RecordsPoller(Collector& collector, RecordsPollerOptions options, Read read, Unreadable unreadable)
    : collector_(collector),
      options_(std::move(options)),
      read_(std::move(read)),
      unreadable_(std::move(unreadable)),
      world_(options_.world) {
    net::WorkerThread<Read1>::Options thread;
    thread.name = options_.thread_name;
    thread.bound = 1;
    thread.tick = options_.interval;
    thread.on_tick = [this] { poll(true); };
    thread.at_stop = net::WorkerThread<Read1>::AtStop::drop;
    thread_ = std::make_unique<net::WorkerThread<Read1>>(std::move(thread), [this](auto& batch) {
        poll(std::any_of(batch.begin(), batch.end(), [](const Read1& r) { return r.in_turn; }));
    });
    (void)thread_->post(Read1{});  // the first read at once, the next ones every interval
}

RecordsPoller::~RecordsPoller() {
    stop_.stop();
    thread_->stop();
}

void RecordsPoller::read_now(bool in_turn) {
    (void)thread_->post(Read1{in_turn});
}

void RecordsPoller::poll(bool in_turn) {
    RecordsImport records;
    const std::string& where = options_.where;
    try {
        records = read_(in_turn, stop_);
        world_ = records.world_size;
        if (last_error_)
            std::cerr << "meshscope serve: " << options_.source << " at " << where << " answers again (job \""
                      << options_.job << "\")\n";
        last_error_.reset();
    } catch (const ras::RasClientStopped&) {
        return;                          // the collector stops: nothing to tell the job
    } catch (const std::exception& e) {  // the client's error, or memory for a reply under the byte cap
        const std::string reason = records::printable(e.what());
        records = RecordsImport{};
        records.findings.push_back(unreadable_(reason));
        records.world_size = world_;  // the job's world stays what was known of it
        if (last_error_ != reason)
            std::cerr << "meshscope serve: cannot read " << options_.source << " at " << where << " for job \""
                      << options_.job << "\": " << reason << "\n";
        last_error_ = reason;
    }
    if (in_flight_->exchange(true)) return;  // the last import is still on its way
    std::string body = to_json(records).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    collector_.submit_records(
        options_.job, std::move(body),
        [in_flight = in_flight_, job = options_.job, diagnosis = options_.diagnosis](const SubmitResult& result) {
            in_flight->store(false);
            if (result.status != 200 && result.status != 503)
                std::cerr << "meshscope serve: " << diagnosis << " of job \"" << job << "\" was refused (HTTP "
                          << result.status << "): " << answer_body(result) << "\n";
        });
}

}  // namespace meshscope::server
