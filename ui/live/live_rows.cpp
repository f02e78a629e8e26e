#include "live_rows.h"

#include <nlohmann/json.hpp>

#include "live_enums.h"

namespace meshscope::ui {

namespace {
using nlohmann::json;

QString string_at(const json& object, const char* key) {
    const auto it = object.find(key);
    if (it == object.end() || !it->is_string()) return {};
    return QString::fromStdString(it->get<std::string>());
}

std::int64_t int_at(const json& object, const char* key, std::int64_t fallback = 0) {
    const auto it = object.find(key);
    if (it == object.end() || !it->is_number_integer()) return fallback;
    return it->get<std::int64_t>();
}

std::optional<double> number_at(const json& object, const char* key) {
    const auto it = object.find(key);
    if (it == object.end() || !it->is_number()) return std::nullopt;
    return it->get<double>();
}

std::optional<ReportedTopology> topology_at(const json& object) {
    const auto it = object.find("topology");
    if (it == object.end() || !it->is_object()) return std::nullopt;
    return ReportedTopology{int_at(*it, "dp", 1), int_at(*it, "cp", 1), int_at(*it, "ep", 1)};
}

const json* array_at(const json& object, const char* key) {
    if (!object.is_object()) return nullptr;
    const auto it = object.find(key);
    return it != object.end() && it->is_array() ? &*it : nullptr;
}
}  // namespace

int phase_index(const QString& phase) {
    return phase_index(phase_named(phase));
}

int phase_index(std::optional<Phase> phase) {
    return phase ? static_cast<int>(index_of(*phase)) : -1;
}

std::optional<JobRow> parse_job(const json& value) {
    if (!value.is_object()) return std::nullopt;
    JobRow row;
    row.job = string_at(value, "job");
    if (row.job.isEmpty()) return std::nullopt;
    row.world_size = int_at(value, "world_size");
    row.ranks_seen = int_at(value, "ranks_seen");
    row.ranks_ready = int_at(value, "ranks_ready");
    row.findings = int_at(value, "findings");
    row.events = int_at(value, "events");
    row.topology = topology_at(value);
    return row;
}

std::vector<JobRow> parse_jobs(const json& body) {
    std::vector<JobRow> rows;
    if (const json* jobs = array_at(body, "jobs"))
        for (const json& j : *jobs)
            if (auto row = parse_job(j)) rows.push_back(std::move(*row));
    return rows;
}

std::vector<RankRow> parse_ranks(const json& body) {
    std::vector<RankRow> rows;
    const json* ranks = array_at(body, "ranks");
    if (!ranks) return rows;
    rows.reserve(ranks->size());
    for (const json& r : *ranks) {
        if (!r.is_object() || !r.contains("rank")) continue;
        RankRow row;
        row.rank = static_cast<int>(int_at(r, "rank"));
        row.state = rank_state_named(string_at(r, "state")).value_or(RankStateKind::pending);
        row.host = string_at(r, "host");
        row.local_rank = static_cast<int>(int_at(r, "local_rank", -1));
        row.phase = phase_named(string_at(r, "phase"));
        row.status = parse_status(string_at(r, "status").toStdString());
        row.topology = topology_at(r);
        if (const json* kinds = array_at(r, "findings"))
            for (const json& k : *kinds)
                if (k.is_string()) row.findings << QString::fromStdString(k.get<std::string>());
        if (const auto e = r.find("error"); e != r.end() && e->is_object()) {
            const QString type = string_at(*e, "type");
            const QString message = string_at(*e, "message");
            row.error = type.isEmpty() ? message : message.isEmpty() ? type : type + QStringLiteral(": ") + message;
        }
        if (const auto t = r.find("timings"); t != r.end() && t->is_object()) {
            for (std::size_t i = 0; i < phase_count; ++i) {
                const auto phase = static_cast<Phase>(i);
                const auto p = t->find(std::string(to_string(phase)));
                if (p == t->end() || !p->is_object()) continue;
                row.timings[i] = PhaseTiming{number_at(*p, "started"), number_at(*p, "done"), number_at(*p, "failed")};
            }
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

FindingRow parse_finding(const json& value) {
    FindingRow row;
    if (!value.is_object()) return row;
    row.id = string_at(value, "id");
    row.kind = string_at(value, "kind");
    row.message = string_at(value, "message");
    row.fix = string_at(value, "fix");
    row.from = string_at(value, "from");
    if (const json* ranks = array_at(value, "ranks"))
        for (const json& r : *ranks)
            if (r.is_number_integer()) row.ranks << static_cast<int>(r.get<std::int64_t>());
    return row;
}

std::vector<FindingRow> parse_findings(const json& body) {
    std::vector<FindingRow> rows;
    if (const json* findings = array_at(body, "findings"))
        for (const json& f : *findings) rows.push_back(parse_finding(f));
    return rows;
}

LiveChange parse_change(const json& value) {
    LiveChange change;
    if (!value.is_object()) return change;
    const QString type = string_at(value, "type");
    change.job = string_at(value, "job");
    if (type == QLatin1String("hello")) {
        change.type = LiveChange::Type::hello;
    } else if (type == QLatin1String("job_added")) {
        change.type = LiveChange::Type::job_added;
    } else if (type == QLatin1String("rank_changed")) {
        change.type = LiveChange::Type::rank_changed;
        change.rank = static_cast<int>(int_at(value, "rank", -1));
        change.state = rank_state_named(string_at(value, "state"));
        change.phase = phase_named(string_at(value, "phase"));
    } else if (type == QLatin1String("finding_added") || type == QLatin1String("finding_updated")) {
        change.type = type == QLatin1String("finding_added") ? LiveChange::Type::finding_added
                                                             : LiveChange::Type::finding_updated;
        if (const auto f = value.find("finding"); f != value.end()) change.finding = parse_finding(*f);
    } else if (type == QLatin1String("finding_removed")) {
        change.type = LiveChange::Type::finding_removed;
        change.finding.id = string_at(value, "id");
        change.finding.kind = string_at(value, "kind");
    }
    return change;
}

QString ranks_text(const QList<int>& ranks, int limit) {
    QStringList items;
    int shown = 0;
    qsizetype i = 0;
    while (i < ranks.size()) {
        qsizetype j = i;
        while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
        if (shown >= limit) break;
        if (j - i >= 2) {
            items << QStringLiteral("%1–%2").arg(ranks[i]).arg(ranks[j]);
            shown += static_cast<int>(j - i + 1);
            i = j + 1;
        } else {
            items << QString::number(ranks[i]);
            ++shown;
            ++i;
        }
    }
    QString text = items.join(QStringLiteral(", "));
    if (i < ranks.size()) text += QStringLiteral(" … (+%1)").arg(ranks.size() - i);
    return text;
}

}  // namespace meshscope::ui
