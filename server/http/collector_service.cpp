#include "collector_service.h"

namespace meshscope::server {

Expected<std::unique_ptr<CollectorService>> CollectorService::start(CollectorOptions collector, HttpOptions http) {
    auto opened = Collector::open(std::move(collector));
    if (!opened) return opened.error();
    std::unique_ptr<CollectorService> service(new CollectorService());
    service->collector_ = std::move(opened).value();
    service->http_ = http;
    auto server = HttpServer::start(*service->collector_, std::move(http));
    if (!server) return server.error();
    service->server_ = std::move(server).value();
    return service;
}

CollectorService::~CollectorService() {
    server_.reset();     // no more requests; answers still in flight go nowhere
    collector_.reset();  // commits what was submitted
}

std::string CollectorService::url() const {
    std::string host = http_.address;
    if (host == "0.0.0.0") host = "127.0.0.1";
    if (host == "::") host = "::1";
    if (host.find(':') != std::string::npos) host = "[" + host + "]";
    return (http_.tls_cert.empty() ? "http://" : "https://") + host + ":" + std::to_string(port());
}

}  // namespace meshscope::server
