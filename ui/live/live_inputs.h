// LiveInputs: what the Live page watches and how: the collector (url, token), the Job, and the session's
// intervals. The page and `meshscope --connect` write them; LiveSession acts on each change signal.
//
//   LiveSession { id: live; inputs.url: "http://127.0.0.1:7077" }
//   live.inputs.currentJob = "job-16"   // the user's pick: the session stops following the collector's first Job
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QObject>
#include <QString>

namespace meshscope::ui {

class LiveInputs : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("LiveInputs belongs to a LiveSession: session.inputs")
    Q_PROPERTY(QString url READ url WRITE setUrl NOTIFY serverChanged)  // "" : no collector
    Q_PROPERTY(QString token READ token WRITE setToken NOTIFY serverChanged)
    Q_PROPERTY(QString currentJob READ currentJob WRITE setCurrentJob NOTIFY currentJobChanged)
    // Snapshots are refetched this often for what the change stream does not carry (hosts, timings, counts).
    Q_PROPERTY(int pollIntervalMs READ pollIntervalMs WRITE setPollIntervalMs NOTIFY pollIntervalMsChanged)
    // The page counts as settled once loaded and quiet (no state or finding changed) this long.
    Q_PROPERTY(int settleMs READ settleMs WRITE setSettleMs NOTIFY settleMsChanged)
    // Models are updated at most once per interval, however fast the job reports (33 ms: <= ~30 updates/s).
    Q_PROPERTY(int updateIntervalMs READ updateIntervalMs WRITE setUpdateIntervalMs NOTIFY updateIntervalMsChanged)

public:
    static constexpr int defaultUpdateIntervalMs = 33;
    static constexpr int minPollIntervalMs = 50;

    using QObject::QObject;

    [[nodiscard]] QString url() const { return url_; }
    void setUrl(const QString& url);
    [[nodiscard]] QString token() const { return token_; }
    void setToken(const QString& token);

    [[nodiscard]] QString currentJob() const { return current_job_; }
    // The user's choice: the session shows this Job from now on, even while it has not reported.
    void setCurrentJob(const QString& job);
    // The session's choice while the user has made none (the collector's first Job, or none).
    void followJob(const QString& job);
    [[nodiscard]] bool userChoseJob() const { return user_chose_job_; }

    [[nodiscard]] int pollIntervalMs() const { return poll_interval_ms_; }
    void setPollIntervalMs(int ms);  // at least minPollIntervalMs
    [[nodiscard]] int settleMs() const { return settle_ms_; }
    void setSettleMs(int ms);
    [[nodiscard]] int updateIntervalMs() const { return update_interval_ms_; }
    void setUpdateIntervalMs(int ms);

signals:
    void serverChanged();
    void currentJobChanged();
    void pollIntervalMsChanged();
    void settleMsChanged();
    void updateIntervalMsChanged();

private:
    void set_job(const QString& job);

    QString url_;
    QString token_;
    QString current_job_;
    bool user_chose_job_ = false;
    int poll_interval_ms_ = 1000;
    int settle_ms_ = 1500;
    int update_interval_ms_ = defaultUpdateIntervalMs;
};

}  // namespace meshscope::ui
