// LiveTestCollector: a real collector (CollectorService: store, monitor, HTTP + WebSocket on a random
// loopback port) for the Live page's Qt Quick tests, fed by posting events or by the built-in demo.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QObject>
#include <QTemporaryDir>

#include <memory>

#include "http/collector_service.h"
#include "live_demo.h"

namespace meshscope::test {

class LiveTestCollector : public QObject {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(QString url READ url NOTIFY urlChanged)
    Q_PROPERTY(QString standardJob READ standardJob CONSTANT)

public:
    explicit LiveTestCollector(QObject* parent = nullptr);
    ~LiveTestCollector() override;

    [[nodiscard]] QString url() const;
    [[nodiscard]] QString standardJob() const;

    // An empty collector; missing_rank after `missingAfter` seconds. False (with a warning) on failure.
    Q_INVOKABLE bool start(double missingAfter = 0.5);
    // The built-in demo (embedded collector + simulated 64-rank job, held).
    Q_INVOKABLE bool startDemo();
    // Posts a body (one event, an array or NDJSON) and waits until it is stored; returns the HTTP status.
    Q_INVOKABLE int post(const QString& body);
    // A meshscope.records/1 body put into `job` as `meshscope import` puts it; returns the HTTP status.
    Q_INVOKABLE int postRecords(const QString& job, const QString& body);
    // The 16-rank job of live_test_support.h, under `job`.
    Q_INVOKABLE int postStandardJob(const QString& job);

signals:
    void urlChanged();

private:
    QTemporaryDir folder_;
    std::unique_ptr<server::CollectorService> service_;
    std::unique_ptr<demo::LiveDemo> demo_;
};

}  // namespace meshscope::test
