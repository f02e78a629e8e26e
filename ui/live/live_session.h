// LiveSession: the Live page's connection to a collector, in three parts QML binds to:
//   inputs     what to watch and how (LiveInputs: url, token, Job, intervals), written by the page
//   view       what the page shows (LiveView: connection state, models, progress), read-only
//   selection  what the user points at (LiveSelection: filters, selected rank and finding)
// The session itself only moves data: one path whether the collector is embedded or remote, everything from
// LiveClient (HTTP snapshots + the WebSocket change stream).
//
//   LiveSession { id: live; inputs.url: "http://127.0.0.1:7077" }
//   ListView { model: live.view.findings }
//
// Updates are coalesced: stream messages and snapshots are buffered and applied to the models at most
// once per `inputs.updateIntervalMs` (33 ms: <= ~30 updates/s), however fast the job reports. Snapshots are
// refetched every `inputs.pollIntervalMs` for what the stream does not carry (hosts, timings, job counts) and
// so that a dropped stream only delays the page. Snapshots are parsed into rows on a worker thread
// (LiveClient::getRows); the GUI thread only applies ready rows to the models.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <optional>
#include <vector>

#include "live_client.h"
#include "live_inputs.h"
#include "live_rows.h"
#include "live_selection.h"
#include "live_view.h"

namespace meshscope::ui {

class LiveSession : public QObject {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(meshscope::ui::LiveInputs* inputs READ inputs CONSTANT)
    Q_PROPERTY(meshscope::ui::LiveView* view READ view CONSTANT)
    Q_PROPERTY(meshscope::ui::LiveSelection* selection READ selection CONSTANT)

public:
    explicit LiveSession(QObject* parent = nullptr);
    ~LiveSession() override;

    [[nodiscard]] LiveInputs* inputs() { return &inputs_; }
    [[nodiscard]] LiveView* view() { return &view_; }
    [[nodiscard]] LiveSelection* selection() { return &selection_; }
    // The connection, for tests that wait until answers went through it (LiveClient::answersSettled).
    [[nodiscard]] const LiveClient& client() const { return client_; }

    // Fetches the jobs and the selected Job's snapshot now.
    Q_INVOKABLE void refresh();

signals:
    void gridChanged();  // any rank's state or findings, the filters or the selection changed: repaint

private:
    void reconnect();
    void poll();
    void fetch_snapshot();
    void on_change(const nlohmann::json& message);
    void on_job_changed();
    void schedule_flush();
    void flush();
    void apply_jobs();
    void update_timeline();
    void show_connection();
    void set_error(const QString& error, bool connected);
    void note_activity();

    LiveInputs inputs_;
    LiveView view_;
    LiveSelection selection_{view_};
    LiveClient client_;

    bool connected_ = false;
    QString error_;

    // Buffered until the next flush.
    std::optional<std::vector<JobRow>> pending_jobs_;
    std::optional<std::vector<RankRow>> pending_ranks_;
    std::optional<std::vector<FindingRow>> pending_findings_;
    std::vector<std::pair<std::uint64_t, LiveChange>> pending_changes_;  // with client_.changesReceived()
    std::uint64_t ranks_seq_ = 0;     // client_.changesReceived() when the pending ranks snapshot was answered
    std::uint64_t findings_seq_ = 0;  // same for the findings snapshot
    bool jobs_in_flight_ = false;
    int snapshot_in_flight_ = 0;  // requests of the current snapshot still out
    bool snapshot_loaded_ = false;
    int snapshot_generation_ = 0;

    QTimer flush_;
    QTimer poll_;
    QTimer settle_;
    QElapsedTimer since_flush_;
};

}  // namespace meshscope::ui
