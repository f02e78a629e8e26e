#include "planner_enums.h"

namespace meshscope::ui {

QString name_of(meshscope::CreationOrder order) {
    const std::string_view name = to_string(order);
    return QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size()));
}

std::optional<meshscope::CreationOrder> creation_order_named(const QString& name) {
    return parse_creation_order(name.toStdString());
}

std::optional<meshscope::CreationOrder> creation_order_of(int value) {
    if (value == static_cast<int>(meshscope::CreationOrder::torch29)) return meshscope::CreationOrder::torch29;
    if (value == static_cast<int>(meshscope::CreationOrder::torch28)) return meshscope::CreationOrder::torch28;
    return std::nullopt;
}

QString name_of(GridMesh mesh) {
    return mesh == GridMesh::expert ? QStringLiteral("expert") : QStringLiteral("data");
}

std::optional<GridMesh> grid_mesh_named(const QString& name) {
    if (name == QLatin1String("expert")) return GridMesh::expert;
    if (name == QLatin1String("data")) return GridMesh::data;
    return std::nullopt;
}

std::optional<GridMesh> grid_mesh_of(int value) {
    if (value == static_cast<int>(GridMesh::expert)) return GridMesh::expert;
    if (value == static_cast<int>(GridMesh::data)) return GridMesh::data;
    return std::nullopt;
}

QString name_of(PlanInput input) {
    switch (input) {
        case PlanInput::none: return {};
        case PlanInput::nodes: return QStringLiteral("nodes");
        case PlanInput::world: return QStringLiteral("world");
        case PlanInput::gpus_per_node: return QStringLiteral("gpusPerNode");
        case PlanInput::cp: return QStringLiteral("cp");
        case PlanInput::ep: return QStringLiteral("ep");
    }
    return {};
}

}  // namespace meshscope::ui
