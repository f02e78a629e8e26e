// The planner's choices as QML enums: CreationOrder (core's), MeshView (which mesh the grid draws) and
// PlanInput (which input an error is about). A QML value is the C++ enum's value, so it casts straight
// back; names come from core's to_string where core has the enum (settings, the CLI's --order).
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QObject>
#include <QString>

#include <optional>

#include "grid_geometry.h"
#include "meshscope/mesh/device_mesh.h"

namespace meshscope::ui {

// The planner's inputs an error can be about.
enum class PlanInput { none = -1, nodes, world, gpus_per_node, cp, ep, mp_replicate, mp_shard };

namespace CreationOrderQml {
Q_NAMESPACE
QML_NAMED_ELEMENT(CreationOrder)
enum Kind {
    Torch29 = static_cast<int>(meshscope::CreationOrder::torch29),
    Torch28 = static_cast<int>(meshscope::CreationOrder::torch28),
};
Q_ENUM_NS(Kind)
}  // namespace CreationOrderQml

namespace MeshViewQml {
Q_NAMESPACE
QML_NAMED_ELEMENT(MeshView)
enum Kind {
    Expert = static_cast<int>(GridMesh::expert),
    Data = static_cast<int>(GridMesh::data),
    Model = static_cast<int>(GridMesh::model),
};
Q_ENUM_NS(Kind)
}  // namespace MeshViewQml

namespace PlanInputQml {
Q_NAMESPACE
QML_NAMED_ELEMENT(PlanInput)
enum Kind {
    None = static_cast<int>(PlanInput::none),
    Nodes = static_cast<int>(PlanInput::nodes),
    World = static_cast<int>(PlanInput::world),
    GpusPerNode = static_cast<int>(PlanInput::gpus_per_node),
    Cp = static_cast<int>(PlanInput::cp),
    Ep = static_cast<int>(PlanInput::ep),
    MpReplicate = static_cast<int>(PlanInput::mp_replicate),
    MpShard = static_cast<int>(PlanInput::mp_shard),
};
Q_ENUM_NS(Kind)
}  // namespace PlanInputQml

[[nodiscard]] QString name_of(meshscope::CreationOrder order);  // core's: "torch29"
[[nodiscard]] std::optional<meshscope::CreationOrder> creation_order_named(const QString& name);
[[nodiscard]] std::optional<meshscope::CreationOrder> creation_order_of(int value);  // a QML value
[[nodiscard]] QString name_of(GridMesh mesh);  // core's mesh names: "expert", "data", "model"
[[nodiscard]] std::optional<GridMesh> grid_mesh_named(const QString& name);
[[nodiscard]] std::optional<GridMesh> grid_mesh_of(int value);
[[nodiscard]] QString name_of(PlanInput input);  // the QML property: "gpusPerNode"; "" for none

}  // namespace meshscope::ui
