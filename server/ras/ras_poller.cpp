#include "ras_poller.h"

#include <pthread.h>

#include <algorithm>
#include <iostream>

#include <nlohmann/json.hpp>

#include "collector/collector.h"
#include "meshscope/monitor/event.h"
#include "meshscope/monitor/records_import.h"
#include "meshscope/records/diagnose.h"
#include "ras_client.h"

namespace meshscope::server {

std::string default_ras_job(const std::string& address) {
    return job_name_from("ras@" + address);
}

Finding ras_unreadable_finding(const std::string& where, const std::string& reason) {
    Finding f;
    f.kind = FindingKind::peer_unreachable;
    f.message = "the collector cannot read NCCL RAS at " + where + ": " + reason;
    f.fix =
        "check that the job is running (NCCL 2.24 or later, NCCL_RAS_ENABLE not 0) and that --ras names its "
        "NCCL_RAS_ADDR (localhost:28028 by default) as seen from the collector";
    f.sources = {where};
    return f;
}

RasPoller::RasPoller(Collector& collector, RasPollerOptions options)
    : collector_(collector), options_(std::move(options)) {
    (void)ras::split_address(options_.address, host_, port_);
    if (options_.plan) world_ = options_.plan->topology().world();
    net::WorkerThread<Poll>::Options thread;
    thread.name = "ms-ras";
    thread.bound = 1;
    thread.tick = options_.interval;
    thread.on_tick = [this] { poll(true); };
    thread.at_stop = net::WorkerThread<Poll>::AtStop::drop;
    thread_ = std::make_unique<net::WorkerThread<Poll>>(std::move(thread), [this](auto& batch) {
        poll(std::any_of(batch.begin(), batch.end(), [](const Poll& p) { return p.in_turn; }));
    });
    (void)thread_->post(Poll{});  // the first poll at once, the next ones every interval
    if (options_.monitor) monitor_ = std::thread([this] { monitor(); });
}

RasPoller::~RasPoller() {
    stop_.stop();
    if (monitor_.joinable()) monitor_.join();
    thread_->stop();
}

void RasPoller::monitor() {
    pthread_setname_np(pthread_self(), "ms-ras-monitor");
    while (!stop_.stopped()) {
        try {
            ras::RasClient client(host_, port_, options_.timeout, options_.max_reply, &stop_);
            (void)client.open(true);
            const auto end = client.monitor(
                [this](const std::string&) {
                    (void)thread_->post(Poll{false});  // one poll waits at most: a burst of events polls once
                    return true;
                },
                options_.monitor_quiet);
            if (end == ras::RasClient::MonitorEnd::quiet) continue;  // open it again at once
        } catch (const ras::RasClientStopped&) {
            return;
        } catch (const ras::RasMonitorRefused& e) {  // a RAS before 2.29: the polls alone follow the job
            std::cerr << "meshscope serve: " << records::printable(e.what()) << "; job \"" << options_.job
                      << "\" follows its polls only\n";
            return;
        } catch (const std::exception&) {
            // RAS unreadable (the polls say so in the job), or memory for an event under the byte cap
        }
        (void)stop_.wait(options_.interval);  // then try again
    }
}

void RasPoller::poll(bool in_turn) {
    RecordsImport records;
    const std::string where = host_ + ":" + port_;  // as RasClient names it
    try {
        ras::RasClient client(host_, port_, options_.timeout, options_.max_reply, &stop_);
        (void)client.open(true);
        const std::string reply = client.verbose_status();
        const auto diagnosis =
            polls_.next(ras::read_status(client, reply), options_.plan ? &*options_.plan : nullptr, in_turn);
        records = records::to_records_import(diagnosis);
        world_ = records.world_size;
        if (last_error_)
            std::cerr << "meshscope serve: NCCL RAS at " << where << " answers again (job \"" << options_.job
                      << "\")\n";
        last_error_.reset();
    } catch (const ras::RasClientStopped&) {
        return;                          // the collector stops: nothing to tell the job
    } catch (const std::exception& e) {  // RasClientError, or memory for a reply under the byte cap
        const std::string reason = records::printable(e.what());
        records.findings.push_back(ras_unreadable_finding(where, reason));
        records.world_size = world_;  // the job's world stays what was known of it
        if (last_error_ != reason)
            std::cerr << "meshscope serve: cannot read NCCL RAS at " << where << " for job \"" << options_.job
                      << "\": " << reason << "\n";
        last_error_ = reason;
    }
    if (in_flight_->exchange(true)) return;  // the last import is still on its way
    std::string body = to_json(records).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    collector_.submit_records(
        options_.job, std::move(body), [in_flight = in_flight_, job = options_.job](const SubmitResult& result) {
            in_flight->store(false);
            if (result.status != 200 && result.status != 503)
                std::cerr << "meshscope serve: the RAS diagnosis of job \"" << job << "\" was refused (HTTP "
                          << result.status << "): " << answer_body(result) << "\n";
        });
}

}  // namespace meshscope::server
