// A CollectorService in-process on a free loopback port with a temporary database, configured per test.
#pragma once

#include <QTemporaryDir>

#include <memory>

#include "http/collector_service.h"

namespace test {

struct CollectorConfig {
    QByteArray token;
    std::size_t max_connections = 64;
    int read_timeout_ms = 10000;
    int idle_timeout_ms = 60000;
    meshscope::server::Shedding shedding;
    double stale_after = 60;
    double missing_after = 30;
    double tick_interval = 0.25;
    std::size_t stream_resume_messages = 1024;
    std::size_t stream_resume_bytes = std::size_t{32} << 20;
    int stream_auth_timeout_ms = 10000;
    QString tls_cert, tls_key;  // PEM files: https and wss
    QString database;           // empty: a fresh one in the fixture's temporary directory
    // The tours' jobs (app/demo's CollectorTourJobs::factory(), as `meshscope serve` gives it); empty: none.
    meshscope::server::TourJobRunnerFactory tour_jobs;
};

struct RunningCollector {
    QTemporaryDir dir;
    std::unique_ptr<meshscope::server::CollectorService> service;
    QString url;
    QString database_file;
    [[nodiscard]] QString database() const {
        return database_file.isEmpty() ? dir.filePath("history.db") : database_file;
    }
    [[nodiscard]] quint16 port() const { return service->port(); }
};

inline std::unique_ptr<RunningCollector> start_collector(const CollectorConfig& config = {}) {
    auto running = std::make_unique<RunningCollector>();
    running->database_file = config.database;
    meshscope::server::CollectorOptions collector;
    collector.database = running->database().toStdString();
    collector.shedding = config.shedding;
    collector.monitor.stale_after = config.stale_after;
    collector.monitor.missing_after = config.missing_after;
    collector.tick_interval = config.tick_interval;
    meshscope::server::HttpOptions http;
    http.port = 0;
    http.token = config.token.toStdString();
    http.limits.max_connections = config.max_connections;
    http.limits.read_timeout_ms = config.read_timeout_ms;
    http.limits.idle_timeout_ms = config.idle_timeout_ms;
    http.stream_resume_messages = config.stream_resume_messages;
    http.stream_resume_bytes = config.stream_resume_bytes;
    http.stream_auth_timeout_ms = config.stream_auth_timeout_ms;
    http.tls_cert = config.tls_cert.toStdString();
    http.tls_key = config.tls_key.toStdString();
    http.tour_jobs = config.tour_jobs;
    auto service = meshscope::server::CollectorService::start(collector, http);
    if (!service) return nullptr;
    running->service = std::move(service).value();
    running->url = QString::fromStdString(running->service->url());
    return running;
}

}  // namespace test
