#include "collector_service.h"

namespace meshscope::server {

Expected<std::unique_ptr<CollectorService>> CollectorService::start(CollectorOptions collector, HttpOptions http) {
    auto opened = Collector::open(std::move(collector));
    if (!opened) return opened.error();
    std::unique_ptr<CollectorService> service(new CollectorService());
    service->collector_ = std::move(opened).value();
    service->http_ = http;
    service->thread_.setObjectName("meshscope-network");
    service->thread_.start();
    service->context_ = new QObject();
    service->context_->moveToThread(&service->thread_);
    QString error;
    CollectorService* self = service.get();
    QMetaObject::invokeMethod(
        self->context_,
        [self, &error] {
            self->server_ = new CollectorHttpServer(*self->collector_, self->http_);
            self->port_ = self->server_->start();
            if (!self->port_) error = self->server_->error_string();
        },
        Qt::BlockingQueuedConnection);
    if (!service->port_)
        return RuntimeError("cannot listen on " + http.address.toString().toStdString() + ":" +
                            std::to_string(http.port) + ": " + error.toStdString());
    return service;
}

CollectorService::~CollectorService() {
    if (thread_.isRunning()) {
        QMetaObject::invokeMethod(
            context_,
            [this] {
                delete server_;
                server_ = nullptr;
                delete context_;
                context_ = nullptr;
            },
            Qt::BlockingQueuedConnection);
        thread_.quit();
        thread_.wait();
    }
    collector_.reset();  // commits what was submitted
}

QString CollectorService::url() const {
    QString host = http_.address.toString();
    if (http_.address.protocol() == QAbstractSocket::IPv6Protocol) host = "[" + host + "]";
    if (http_.address == QHostAddress::Any || http_.address == QHostAddress::AnyIPv4) host = "127.0.0.1";
    return QStringLiteral("http://%1:%2").arg(host).arg(port_);
}

}  // namespace meshscope::server
