// LiveTestCollector: a real collector (CollectorService: store, monitor, HTTP + WebSocket on a random
// loopback port) for the Live page's Qt Quick tests, fed by posting events or by the built-in demo.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QVariant>

#include <memory>

#include "http/collector_service.h"
#include "live_demo.h"
#include "ras/ras_poller.h"

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
    // tests/cli's fake NCCL RAS server (python3), answering with the committed status (tests/records/fixtures/ras),
    // read by the collector itself into `job` every 0.1 s as `meshscope serve --ras` reads it; returns the fake's
    // address ("127.0.0.1:PORT"), empty (with a warning) on failure. stopFakeRas(): the job's RAS goes away.
    Q_INVOKABLE QString pollFakeRas(const QString& job);
    Q_INVOKABLE void stopFakeRas();
    // `meshscope import` run as a user runs it: the Flight Recorder dumps of a real torch fault job
    // (tests/records/fixtures/fr-verdict/<fixture>) on the plan dp, ep, into `job` of this collector; returns its
    // exit status (-1 when it could not run), its stderr as a warning when it failed.
    Q_INVOKABLE int importFaultJob(const QString& fixture, const QString& job, int dp, int ep);
    // That fixture's facts.json (the fault make_verdict_jobs.py injected), as a JS object; empty when unreadable.
    Q_INVOKABLE QVariant faultFacts(const QString& fixture) const;

signals:
    void urlChanged();

private:
    QTemporaryDir folder_;
    std::unique_ptr<server::CollectorService> service_;
    std::unique_ptr<demo::LiveDemo> demo_;
    QProcess fake_ras_;
    std::unique_ptr<server::RasPoller> ras_;  // after service_: stopped before the collector it feeds
};

}  // namespace meshscope::test
