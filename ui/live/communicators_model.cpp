#include "communicators_model.h"

#include <QNetworkReply>
#include <QNetworkRequest>
#include <QUrl>

#include <algorithm>

#include <nlohmann/json.hpp>

namespace meshscope::ui {

namespace {
QString size_text(std::int64_t bytes) {
    static const char* units[] = {"B", "KiB", "MiB", "GiB"};
    int unit = 0;
    while (bytes >= 1024 && bytes % 1024 == 0 && unit < 3) {
        bytes /= 1024;
        ++unit;
    }
    return QString::number(bytes) + " " + units[unit];
}

QString members_text(const nlohmann::json& members) {
    QStringList out;
    for (std::size_t i = 0; i < members.size(); ++i) {
        if (members.size() > 12 && i == 4) {
            out << "...";
            i = members.size() - 1;
        }
        out << QString::number(members[i].get<qint64>());
    }
    return "[" + out.join(", ") + "]";
}
}  // namespace

QString bandwidth_text(double gbps) {
    return QString::number(gbps, 'f', gbps >= 10 ? 1 : gbps >= 0.1 ? 2 : 3) + " GB/s";
}

std::vector<CommunicatorRow> parse_communicator_rows(const nlohmann::json& body) {
    std::vector<CommunicatorRow> rows;
    if (!body.is_object()) return rows;
    for (const auto& d : body.value("dims", nlohmann::json::array())) {
        CommunicatorRow row;
        row.is_dim = true;
        row.dim = QString::fromStdString(d.value("dim", ""));
        row.collective = QString::fromStdString(d.value("collective", ""));
        row.label = row.dim + " · " + row.collective;
        row.busbw = d.value("median_busbw", 0.0);
        row.min_busbw = d.value("min_busbw", 0.0);
        row.max_busbw = d.value("max_busbw", 0.0);
        row.detail = QString("%1 groups · %2").arg(d.value("groups", 0)).arg(size_text(d.value("bytes", 0)));
        rows.push_back(std::move(row));
    }
    for (const auto& g : body.value("groups", nlohmann::json::array())) {
        CommunicatorRow row;
        row.dim = QString::fromStdString(g.value("dim", ""));
        const auto members = g.value("members", nlohmann::json::array());
        row.label = QString("%1 group %2 %3").arg(row.dim).arg(g.value("index", 0)).arg(members_text(members));
        row.state = QString::fromStdString(g.value("state", ""));
        row.slow = g.value("slow", false);
        // The group's figure: its lowest busbw at the largest size measured.
        std::int64_t largest = 0;
        for (const auto& r : g.value("results", nlohmann::json::array()))
            largest = std::max(largest, r.value("bytes", std::int64_t{0}));
        bool first = true;
        for (const auto& r : g.value("results", nlohmann::json::array())) {
            if (r.value("bytes", std::int64_t{0}) != largest) continue;
            const double b = r.value("busbw", 0.0);
            if (first || b < row.busbw) {
                row.busbw = b;
                row.collective = QString::fromStdString(r.value("collective", ""));
            }
            first = false;
        }
        row.min_busbw = row.max_busbw = row.busbw;
        row.detail = QString("%1/%2 members").arg(g.value("reported", 0)).arg(members.size()) +
                     (largest ? " · " + size_text(largest) : QString());
        rows.push_back(std::move(row));
    }
    return rows;
}

namespace {
using R = CommunicatorRow;
constexpr RowRole<R> roles[] = {
    {CommunicatorsModel::IsDimRole, "isDim", [](const R& r) -> QVariant { return r.is_dim; }},
    {CommunicatorsModel::DimRole, "dim", [](const R& r) -> QVariant { return r.dim; }},
    {CommunicatorsModel::LabelRole, "label", [](const R& r) -> QVariant { return r.label; }},
    {CommunicatorsModel::CollectiveRole, "collective", [](const R& r) -> QVariant { return r.collective; }},
    {CommunicatorsModel::BusbwRole, "busbw", [](const R& r) -> QVariant { return r.busbw; }},
    {CommunicatorsModel::MinBusbwRole, "minBusbw", [](const R& r) -> QVariant { return r.min_busbw; }},
    {CommunicatorsModel::MaxBusbwRole, "maxBusbw", [](const R& r) -> QVariant { return r.max_busbw; }},
    {CommunicatorsModel::StateRole, "state", [](const R& r) -> QVariant { return r.state; }},
    {CommunicatorsModel::SlowRole, "slow", [](const R& r) -> QVariant { return r.slow; }},
    {CommunicatorsModel::DetailRole, "detail", [](const R& r) -> QVariant { return r.detail; }},
    {CommunicatorsModel::BusbwTextRole, "busbwText", [](const R& r) -> QVariant { return bandwidth_text(r.busbw); }},
};
static_assert(roles_in_order(roles));
}  // namespace

CommunicatorsModel::CommunicatorsModel(QObject* parent) : RowListModel(roles, LabelRole, parent) {
    poll_.setInterval(2000);
    connect(&poll_, &QTimer::timeout, this, &CommunicatorsModel::refresh);
}

int CommunicatorsModel::dimCount() const {
    return static_cast<int>(std::count_if(rows().begin(), rows().end(), [](const auto& r) { return r.is_dim; }));
}

void CommunicatorsModel::setUrl(const QString& url) {
    if (url == url_) return;
    url_ = url;
    restart();
}

void CommunicatorsModel::setToken(const QString& token) {
    if (token == token_) return;
    token_ = token;
    restart();
}

void CommunicatorsModel::setJob(const QString& job) {
    if (job == job_) return;
    job_ = job;
    restart();
}

void CommunicatorsModel::setPollIntervalMs(int ms) {
    if (ms == poll_.interval() || ms <= 0) return;
    poll_.setInterval(ms);
    emit pollIntervalMsChanged();
}

void CommunicatorsModel::restart() {
    emit sourceChanged();
    if (in_flight_) in_flight_->abort();
    setRows({});
    if (url_.isEmpty() || job_.isEmpty()) {
        poll_.stop();
        return;
    }
    poll_.start();
    refresh();
}

void CommunicatorsModel::setRows(std::vector<CommunicatorRow> rows) {
    if (rows == this->rows()) return;
    RowListModel::setRows(std::move(rows));
}

void CommunicatorsModel::refresh() {
    if (url_.isEmpty() || job_.isEmpty() || in_flight_) return;
    QUrl target(url_);
    target.setPath("/api/v1/jobs/" + job_ + "/communicators");
    QNetworkRequest request(target);
    if (!token_.isEmpty()) request.setRawHeader("Authorization", "Bearer " + token_.toUtf8());
    request.setTransferTimeout(10000);
    QNetworkReply* reply = network_.get(request);
    in_flight_ = reply;
    const QString asked = job_;
    connect(reply, &QNetworkReply::finished, this, [this, reply, asked] {
        reply->deleteLater();
        if (in_flight_ == reply) in_flight_ = nullptr;
        if (asked != job_) return;
        if (reply->error() == QNetworkReply::NoError) {
            const auto body = nlohmann::json::parse(reply->readAll().toStdString(), nullptr, false);
            if (!body.is_discarded()) setRows(parse_communicator_rows(body));
        }
        emit refreshed();
    });
}

}  // namespace meshscope::ui
