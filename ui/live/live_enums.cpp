#include "live_enums.h"

namespace meshscope::ui {

namespace {
QString from(std::string_view text) {
    return QString::fromLatin1(text.data(), static_cast<qsizetype>(text.size()));
}
}  // namespace

QString name_of(RankStateKind state) {
    return from(to_string(state));
}

QString name_of(meshscope::Phase phase) {
    return from(to_string(phase));
}

QString name_of(meshscope::Status status) {
    return from(to_string(status));
}

std::optional<RankStateKind> rank_state_named(const QString& name) {
    return parse_rank_state_kind(name.toStdString());
}

std::optional<meshscope::Phase> phase_named(const QString& name) {
    return parse_phase(name.toStdString());
}

QStringList rank_state_names() {
    QStringList names;
    for (std::size_t k = 0; k < rank_state_kind_count; ++k) names << name_of(static_cast<RankStateKind>(k));
    return names;
}

std::optional<RankStateKind> rank_state_of(int value) {
    if (value < 0 || value >= static_cast<int>(rank_state_kind_count)) return std::nullopt;
    return static_cast<RankStateKind>(value);
}

}  // namespace meshscope::ui
