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
    switch (mesh) {
        case GridMesh::expert: return QStringLiteral("expert");
        case GridMesh::data: return QStringLiteral("data");
        case GridMesh::model:
            return QString::fromLatin1(model_mesh_name.data(), static_cast<qsizetype>(model_mesh_name.size()));
    }
    return {};
}

std::optional<GridMesh> grid_mesh_named(const QString& name) {
    for (const GridMesh mesh : {GridMesh::expert, GridMesh::data, GridMesh::model})
        if (name == name_of(mesh)) return mesh;
    return std::nullopt;
}

std::optional<GridMesh> grid_mesh_of(int value) {
    for (const GridMesh mesh : {GridMesh::expert, GridMesh::data, GridMesh::model})
        if (value == static_cast<int>(mesh)) return mesh;
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
        case PlanInput::mp_replicate: return QStringLiteral("mpReplicate");
        case PlanInput::mp_shard: return QStringLiteral("mpShard");
    }
    return {};
}

}  // namespace meshscope::ui
