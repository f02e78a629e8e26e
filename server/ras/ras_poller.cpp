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

RasPoller::RasPoller(Collector& collector, RasPollerOptions options) : options_(std::move(options)) {
    (void)ras::split_address(options_.address, host_, port_);
    RecordsPollerOptions poll;
    poll.job = options_.job;
    poll.thread_name = "ms-ras";
    poll.source = "NCCL RAS";
    const std::string where = host_ + ":" + port_;  // as RasClient names it
    poll.where = where;
    poll.diagnosis = "the RAS diagnosis";
    poll.interval = options_.interval;
    if (options_.plan) poll.world = options_.plan->topology().world();
    poller_ = std::make_unique<RecordsPoller>(
        collector, std::move(poll), [this](bool in_turn, const ras::RasStop& stop) { return read(in_turn, stop); },
        [where](const std::string& reason) { return ras_unreadable_finding(where, reason); });
    if (options_.monitor) monitor_ = std::thread([this] { monitor(); });
}

RasPoller::~RasPoller() {
    poller_->stop_waits();
    if (monitor_.joinable()) monitor_.join();
    poller_.reset();
}

void RasPoller::monitor() {
    pthread_setname_np(pthread_self(), "ms-ras-monitor");
    const ras::RasStop& stop = poller_->stop();
    while (!stop.stopped()) {
        try {
            ras::RasClient client(host_, port_, options_.timeout, options_.max_reply, &stop);
            (void)client.open(true);
            const auto end = client.monitor(
                [this](const std::string&) {
                    poller_->read_now(false);  // one read waits at most: a burst of events reads once
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
        (void)stop.wait(options_.interval);  // then try again
    }
}

RecordsImport RasPoller::read(bool in_turn, const ras::RasStop& stop) {
    ras::RasClient client(host_, port_, options_.timeout, options_.max_reply, &stop);
    (void)client.open(true);
    const std::string reply = client.verbose_status();
    return records::to_records_import(
        polls_.next(ras::read_status(client, reply), options_.plan ? &*options_.plan : nullptr, in_turn));
}

}  // namespace meshscope::server
