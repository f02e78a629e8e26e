#include "live_rows.h"

#include <QtGlobal>

#include <nlohmann/json.hpp>

#include "live_enums.h"
#include "meshscope/monitor/finding.h"
#include "meshscope/monitor/monitor.h"

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

QString text_of(const std::optional<std::string>& text) {
    return text ? QString::fromStdString(*text) : QString();
}

// A value core's reader refuses is a collector bug to report, not a row to guess: it is left out, and said.
void left_out(const char* what, const Error& error) {
    qWarning("meshscope: a %s from the collector is left out: %s", what, error.what());
}

// A kind this build does not know (a newer collector's) is shown under its name.
FindingRow finding_row(const Finding& f, const UnknownNames& unknown) {
    FindingRow row;
    row.id = QString::fromStdString(f.id);
    row.kind = QString::fromStdString(unknown.kind.empty() ? std::string(to_string(f.kind)) : unknown.kind);
    row.ranks.reserve(static_cast<qsizetype>(f.ranks.size()));
    for (const std::int64_t r : f.ranks) row.ranks << static_cast<int>(r);
    row.message = QString::fromStdString(f.message);
    row.fix = QString::fromStdString(f.fix);
    row.from = QString::fromStdString(sources_line(f.sources));
    return row;
}

// An unknown state reads as pending (RankState's default); unknown finding kinds are listed after the known ones.
RankRow rank_row(const RankState& s, const UnknownNames& unknown) {
    RankRow row;
    row.rank = static_cast<int>(s.rank);
    row.state = s.state;
    row.host = text_of(s.host);
    row.local_rank = static_cast<int>(s.local_rank.value_or(-1));
    row.phase = s.phase;
    row.status = s.status;
    row.topology = s.topology;
    for (const FindingKind k : s.findings) row.findings << QString::fromStdString(std::string(to_string(k)));
    for (const std::string& k : unknown.findings) row.findings << QString::fromStdString(k);
    if (s.error) {
        const QString type = QString::fromStdString(s.error->type);
        const QString message = QString::fromStdString(s.error->message);
        row.error = type.isEmpty() ? message : message.isEmpty() ? type : type + QStringLiteral(": ") + message;
    }
    row.timings = s.timings;
    row.position = s.position;
    return row;
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
    if (const auto it = value.find("hang"); it != value.end()) {
        auto hang = hang_summary_from_json(*it, "hang");
        if (hang)
            row.hang = std::move(hang).value();
        else
            left_out("job's hang summary", hang.error());
    }
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
        UnknownNames unknown;
        const auto state = rank_state_from_json(r, &unknown);
        if (!state) {
            left_out("rank state", state.error());
            continue;
        }
        rows.push_back(rank_row(*state, unknown));
    }
    return rows;
}

std::optional<FindingRow> parse_finding(const json& value) {
    UnknownNames unknown;
    const auto finding = finding_from_json(value, &unknown);
    if (!finding) {
        left_out("finding", finding.error());
        return std::nullopt;
    }
    return finding_row(*finding, unknown);
}

std::vector<FindingRow> parse_findings(const json& body) {
    std::vector<FindingRow> rows;
    if (const json* findings = array_at(body, "findings"))
        for (const json& f : *findings)
            if (auto row = parse_finding(f)) rows.push_back(std::move(*row));
    return rows;
}

LiveChange parse_change(const json& value) {
    LiveChange change;
    if (value.is_object() && value.value("type", json()) == "hello") {
        change.type = LiveChange::Type::hello;
        return change;
    }
    UnknownNames unknown;
    const auto read = change_from_json(value, &unknown);
    if (!read) {
        left_out("change", read.error());
        return change;
    }
    change.job = QString::fromStdString(read->job);
    if (!unknown.type.empty()) return change;  // a newer collector's change: the next snapshot shows its effect
    switch (read->kind) {
        case ChangeKind::job_added: change.type = LiveChange::Type::job_added; break;
        case ChangeKind::rank_changed:
            change.type = LiveChange::Type::rank_changed;
            change.rank = static_cast<int>(read->rank);
            if (unknown.state.empty()) change.state = read->state;
            change.phase = read->phase;
            break;
        case ChangeKind::finding_added:
        case ChangeKind::finding_updated:
            change.type = read->kind == ChangeKind::finding_added ? LiveChange::Type::finding_added
                                                                  : LiveChange::Type::finding_updated;
            if (read->finding) change.finding = finding_row(*read->finding, unknown);
            break;
        case ChangeKind::finding_removed:
            change.type = LiveChange::Type::finding_removed;
            if (read->finding) change.finding = finding_row(*read->finding, unknown);
            break;
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
