#include "live_test_collector.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>

#include <future>

#include "live_test_support.h"

namespace meshscope::test {

LiveTestCollector::LiveTestCollector(QObject* parent) : QObject(parent) {}

LiveTestCollector::~LiveTestCollector() = default;

QString LiveTestCollector::url() const {
    if (demo_) return demo_->url();
    return service_ ? QString::fromStdString(service_->url()) : QString();
}

QString LiveTestCollector::standardJob() const {
    return QString::fromLatin1(standard_job);
}

bool LiveTestCollector::start(double missingAfter) {
    server::CollectorOptions options;
    options.database = folder_.filePath(QStringLiteral("live-test.db")).toStdString();
    options.durability = server::Durability::normal;
    options.monitor.missing_after = missingAfter;
    options.tick_interval = 0.1;
    server::HttpOptions http;
    http.port = 0;
    auto service = server::CollectorService::start(std::move(options), http);
    if (!service) {
        qWarning("LiveTestCollector: %s", service.error().what());
        return false;
    }
    service_ = std::move(service).value();
    emit urlChanged();
    return true;
}

bool LiveTestCollector::startDemo() {
    auto demo = demo::LiveDemo::start();
    if (!demo) {
        qWarning("LiveTestCollector: %s", demo.error().what());
        return false;
    }
    demo_ = std::move(demo).value();
    emit urlChanged();
    return true;
}

int LiveTestCollector::post(const QString& body) {
    if (!service_) return 0;
    std::promise<int> status;
    auto result = status.get_future();
    service_->collector().submit(body.toStdString(), [&status](server::SubmitResult r) { status.set_value(r.status); });
    return result.get();
}

int LiveTestCollector::postRecords(const QString& job, const QString& body) {
    if (!service_) return 0;
    std::promise<int> status;
    auto result = status.get_future();
    service_->collector().submit_records(job.toStdString(), body.toStdString(),
                                         [&status](server::SubmitResult r) { status.set_value(r.status); });
    return result.get();
}

int LiveTestCollector::postStandardJob(const QString& job) {
    return post(QString::fromStdString(standard_job_ndjson(job.toStdString())));
}

QString LiveTestCollector::pollFakeRas(const QString& job) {
    if (!service_) return {};
    fake_ras_.setProgram(QStringLiteral("python3"));
    fake_ras_.setArguments({QStringLiteral(FAKE_RAS_SERVER), QStringLiteral("--json"), QStringLiteral(RAS_STATUS)});
    fake_ras_.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    fake_ras_.start();
    // It prints its port once it listens.
    for (int i = 0; i < 100 && !fake_ras_.canReadLine() && fake_ras_.state() != QProcess::NotRunning; ++i)
        fake_ras_.waitForReadyRead(100);
    bool ok = false;
    const int port = fake_ras_.readLine().trimmed().toInt(&ok);
    if (!ok || port <= 0) {
        qWarning("LiveTestCollector: the fake RAS server did not start");
        return {};
    }
    server::RasPollerOptions options;
    options.address = "127.0.0.1:" + std::to_string(port);
    options.job = job.toStdString();
    options.interval = std::chrono::milliseconds(100);
    options.timeout = std::chrono::milliseconds(5000);
    ras_ = std::make_unique<server::RasPoller>(service_->collector(), options);
    return QString::fromStdString(options.address);
}

int LiveTestCollector::importFaultJob(const QString& fixture, const QString& job, int dp, int ep) {
    if (!service_) return -1;
    QProcess meshscope;
    meshscope.start(QStringLiteral(MESHSCOPE_BINARY),
                    {QStringLiteral("import"), QStringLiteral(FR_VERDICT_FIXTURES "/") + fixture,
                     QStringLiteral("--dp"), QString::number(dp), QStringLiteral("--ep"), QString::number(ep),
                     QStringLiteral("--target"), url(), QStringLiteral("--job"), job});
    if (!meshscope.waitForFinished(30000) || meshscope.exitStatus() != QProcess::NormalExit) return -1;
    if (meshscope.exitCode() != 0)
        qWarning("LiveTestCollector: meshscope import: %s", meshscope.readAllStandardError().constData());
    return meshscope.exitCode();
}

QVariant LiveTestCollector::faultFacts(const QString& fixture) const {
    QFile file(QStringLiteral(FR_VERDICT_FIXTURES "/") + fixture + QStringLiteral("/facts.json"));
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(file.readAll()).object().toVariantMap();  // a JS object in QML
}

void LiveTestCollector::stopFakeRas() {
    fake_ras_.kill();
    fake_ras_.waitForFinished(5000);
}

}  // namespace meshscope::test
