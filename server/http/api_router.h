// ApiRouter: the collector's HTTP API (docs/collector.md) without the HTTP engine: who may ask (the
// token), which route a request takes, and the answer. Queries run on the monitor thread and POSTs go
// through the store and the monitor; the answer comes back through a callback, so the network thread
// never waits for either (the one exception: /metrics, a rare scrape, waits for one monitor query).
#pragma once

#include <functional>
#include <memory>

#include "http_exchange.h"
#include "http_options.h"

namespace meshscope::server {

class Collector;
class JobKv;
class PlanWorker;
class RanksCache;
class TourApi;

class ApiRouter {
public:
    using Reply = std::function<void(HttpReply)>;

    ApiRouter(Collector& collector, HttpOptions options);
    ~ApiRouter();
    ApiRouter(const ApiRouter&) = delete;
    ApiRouter& operator=(const ApiRouter&) = delete;

    // Calls reply exactly once: inline, or later on a collector thread. A reply with accept_stream set
    // asks the engine to accept the WebSocket upgrade.
    void handle(HttpRequest request, Reply reply);

private:
    [[nodiscard]] bool authorized(const HttpRequest& request, std::string_view path, std::string_view query) const;
    void answer_job(const std::vector<std::string>& segments, std::string_view query, Reply reply);
    void answer_events(std::string body, Reply reply);
    void answer_batches(const std::string& body, Reply reply);
    void answer_otlp(HttpRequest request, Reply reply);  // POST /v1/logs (OTLP/HTTP JSON)

    Collector& collector_;
    HttpOptions options_;
    std::shared_ptr<RanksCache> ranks_cache_;  // used on the monitor thread only
    std::unique_ptr<PlanWorker> plan_worker_;  // the plan routes, off the network thread
    std::unique_ptr<JobKv> kv_;                // /api/v1/jobs/{job}/kv/{key}: rendezvous (job_kv.h)
    std::unique_ptr<TourApi> tours_;           // /api/v1/tours..., /api/v1/sandbox: the teaching mode (tour_api.h)
};

}  // namespace meshscope::server
