// Core's enums as QML sees them: `RankState.Ready`, `Phase.DeviceMesh`. The values are core's
// (RankStateKind, Phase: a QML value casts straight to the core enum) and every name the page shows or
// sends is core's to_string, so the page, the collector's JSON and the docs share one vocabulary. C++
// keeps using core's enum classes; these namespaces only carry them to QML (core has no Qt).
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QObject>
#include <QString>
#include <QStringList>

#include <optional>

#include "meshscope/monitor/event.h"
#include "meshscope/monitor/rank_state.h"

namespace meshscope::ui {

namespace RankStateQml {
Q_NAMESPACE
QML_NAMED_ELEMENT(RankState)
enum Kind {
    Pending = static_cast<int>(RankStateKind::pending),
    Initializing = static_cast<int>(RankStateKind::initializing),
    Ready = static_cast<int>(RankStateKind::ready),
    Failed = static_cast<int>(RankStateKind::failed),
    Stale = static_cast<int>(RankStateKind::stale),
    Exited = static_cast<int>(RankStateKind::exited),
};
Q_ENUM_NS(Kind)
}  // namespace RankStateQml

namespace PhaseQml {
Q_NAMESPACE
QML_NAMED_ELEMENT(Phase)
enum Kind {
    Launch = static_cast<int>(meshscope::Phase::launch),
    ProcessGroup = static_cast<int>(meshscope::Phase::process_group),
    DeviceMesh = static_cast<int>(meshscope::Phase::device_mesh),
    ParallelState = static_cast<int>(meshscope::Phase::parallel_state),
    Communicator = static_cast<int>(meshscope::Phase::communicator),
    Ready = static_cast<int>(meshscope::Phase::ready),
    Heartbeat = static_cast<int>(meshscope::Phase::heartbeat),
    Error = static_cast<int>(meshscope::Phase::error),
    Exit = static_cast<int>(meshscope::Phase::exit),
};
Q_ENUM_NS(Kind)
}  // namespace PhaseQml

// Core's names as QString: "ready", "device_mesh".
[[nodiscard]] QString name_of(RankStateKind state);
[[nodiscard]] QString name_of(meshscope::Phase phase);
[[nodiscard]] QString name_of(meshscope::Status status);
[[nodiscard]] std::optional<RankStateKind> rank_state_named(const QString& name);
[[nodiscard]] std::optional<meshscope::Phase> phase_named(const QString& name);
// Every state's name, in RankStateKind order (index = RankState value).
[[nodiscard]] QStringList rank_state_names();
// A QML RankState value (an int) as core's enum; nullopt when out of range (-1: "any state").
[[nodiscard]] std::optional<RankStateKind> rank_state_of(int value);

}  // namespace meshscope::ui
