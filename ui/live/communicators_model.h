// CommunicatorsModel: meshscope-probe's bandwidth per dim and per group for one job, from the collector's
// GET /api/v1/jobs/{job}/communicators (docs/probe.md), polled while a job is set. One row per dim and
// collective (the dim's median, slowest and fastest group), then one row per group. Separate from
// LiveSession: the page binds url, token and job to the session's.
//
//   CommunicatorsModel { url: live.url; token: live.token; job: live.currentJob }
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QNetworkAccessManager>
#include <QPointer>
#include <QTimer>

#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "row_list_model.h"

class QNetworkReply;

namespace meshscope::ui {

struct CommunicatorRow {
    bool is_dim = false;
    QString dim;
    QString label;       // "ep · all_to_all" or "ep group 1 [1, 3]"
    QString collective;  // the dim row's collective; a group row's slowest collective at the largest size
    double busbw = 0;    // GB/s: the dim's median, or the group's figure
    double min_busbw = 0;
    double max_busbw = 0;
    QString state;  // formed, not_formed, wrong_result, failed (groups)
    bool slow = false;
    QString detail;  // "4 groups · 64 KiB" or "2/2 members · 64 KiB"
    friend bool operator==(const CommunicatorRow&, const CommunicatorRow&) = default;
};

// The collector's JSON as rows (pure, tested).
[[nodiscard]] std::vector<CommunicatorRow> parse_communicator_rows(const nlohmann::json& body);

class CommunicatorsModel : public MESHSCOPE_ROW_LIST_MODEL(CommunicatorRow) {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(QString url READ url WRITE setUrl NOTIFY sourceChanged)
    Q_PROPERTY(QString token READ token WRITE setToken NOTIFY sourceChanged)
    Q_PROPERTY(QString job READ job WRITE setJob NOTIFY sourceChanged)
    Q_PROPERTY(int pollIntervalMs READ pollIntervalMs WRITE setPollIntervalMs NOTIFY pollIntervalMsChanged)
    Q_PROPERTY(int dimCount READ dimCount NOTIFY countChanged)

public:
    enum Role {
        IsDimRole = Qt::UserRole + 1,
        DimRole,
        LabelRole,
        CollectiveRole,
        BusbwRole,
        MinBusbwRole,
        MaxBusbwRole,
        StateRole,
        SlowRole,
        DetailRole,
        BusbwTextRole,
    };
    Q_ENUM(Role)

    explicit CommunicatorsModel(QObject* parent = nullptr);

    [[nodiscard]] QString url() const { return url_; }
    void setUrl(const QString& url);
    [[nodiscard]] QString token() const { return token_; }
    void setToken(const QString& token);
    [[nodiscard]] QString job() const { return job_; }
    void setJob(const QString& job);
    [[nodiscard]] int pollIntervalMs() const { return poll_.interval(); }
    void setPollIntervalMs(int ms);
    [[nodiscard]] int dimCount() const;

    // New rows reset the model; the same rows change nothing.
    void setRows(std::vector<CommunicatorRow> rows);
    // Asks the collector now (also done every pollIntervalMs while url and job are set).
    Q_INVOKABLE void refresh();

signals:
    void sourceChanged();
    void pollIntervalMsChanged();
    void refreshed();  // an answer arrived (rows set, or left as they were on an error)

private:
    void restart();

    QString url_, token_, job_;
    QNetworkAccessManager network_;
    QTimer poll_;
    QPointer<QNetworkReply> in_flight_;
};

// "1.25 GB/s", "12.5 GB/s", "0.012 GB/s"
[[nodiscard]] QString bandwidth_text(double gbps);

}  // namespace meshscope::ui
