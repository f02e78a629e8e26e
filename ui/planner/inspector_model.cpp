#include "inspector_model.h"

#include "dim_style.h"

namespace meshscope::ui {

int InspectorModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

QVariant InspectorModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const Row& row = rows_[static_cast<std::size_t>(index.row())];
    switch (role) {
        case MeshRole: return row.mesh;
        case FirstOfMeshRole:
            return index.row() == 0 || rows_[static_cast<std::size_t>(index.row()) - 1].mesh != row.mesh;
        case Qt::DisplayRole:
        case DimRole: return row.dim;
        case CoordinateRole: return QVariant::fromValue<qint64>(row.coordinate);
        case GroupIndexRole: return QVariant::fromValue<qint64>(row.group_index);
        case GroupSizeRole: return QVariant::fromValue<qint64>(static_cast<std::int64_t>(row.members.size()));
        case MembersRole: return members_text(row.members);
        case LeavesNodeRole: return row.nodes > 1;
        case NodeCountRole: return QVariant::fromValue<qint64>(row.nodes);
        case ColorRole: return dim_style(row.dim.toStdString()).color;
        default: return {};
    }
}

QHash<int, QByteArray> InspectorModel::roleNames() const {
    return {{MeshRole, "mesh"},
            {FirstOfMeshRole, "firstOfMesh"},
            {DimRole, "dim"},
            {CoordinateRole, "coordinate"},
            {GroupIndexRole, "groupIndex"},
            {GroupSizeRole, "groupSize"},
            {MembersRole, "members"},
            {LeavesNodeRole, "leavesNode"},
            {NodeCountRole, "nodeCount"},
            {ColorRole, "dimColor"}};
}

int InspectorModel::node() const {
    return plan_ && rank_ >= 0 ? static_cast<int>(plan_->placement().node_of(rank_)) : -1;
}

int InspectorModel::local_rank() const {
    return plan_ && rank_ >= 0 ? static_cast<int>(plan_->placement().local_rank_of(rank_)) : -1;
}

QString InspectorModel::coordinate_text(std::string_view mesh) const {
    if (!plan_ || rank_ < 0) return {};
    const PlanMesh* pm = plan_->mesh(mesh);
    if (pm == nullptr) return {};
    const auto names = pm->mesh.dim_names();
    const auto coordinate = pm->mesh.coordinate(rank_);
    QString out = QStringLiteral("(");
    for (std::size_t d = 0; d < names.size(); ++d)
        out += QStringLiteral("%1%2 %3")
                   .arg(d ? QStringLiteral(", ") : QString(), QString::fromStdString(names[d]))
                   .arg(coordinate[d]);
    return out + QStringLiteral(")");
}

QString InspectorModel::members_text(const std::vector<std::int64_t>& ranks) {
    constexpr std::size_t shown_in_full = 24;
    constexpr std::size_t head = 16;
    QString out;
    const auto append = [&out](std::int64_t r) {
        if (!out.isEmpty()) out += QStringLiteral(", ");
        out += QString::number(r);
    };
    if (ranks.size() <= shown_in_full) {
        for (std::int64_t r : ranks) append(r);
        return out;
    }
    for (std::size_t i = 0; i < head; ++i) append(ranks[i]);
    out += QStringLiteral(", …, %1  (%2 ranks)").arg(ranks.back()).arg(ranks.size());
    return out;
}

void InspectorModel::set(const std::shared_ptr<const Plan>& plan, std::int64_t rank) {
    if (!plan || rank < 0 || rank >= plan->topology().world()) rank = -1;
    beginResetModel();
    plan_ = plan;
    rank_ = rank;
    rows_.clear();
    if (rank_ >= 0) {
        const Placement& placement = plan_->placement();
        for (const PlanMesh& pm : plan_->meshes()) {
            const auto names = pm.mesh.dim_names();
            for (std::size_t d = 0; d < pm.mesh.ndim(); ++d) {
                Row row{QString::fromStdString(pm.name), QString::fromStdString(names[d]),
                        pm.mesh.coordinate(rank_, d),    pm.mesh.group_index(rank_, d, plan_->order()),
                        pm.mesh.group_of(rank_, d),      1};
                // Members ascend and nodes follow ranks, so counting changes counts nodes.
                for (std::size_t i = 1; i < row.members.size(); ++i)
                    if (placement.node_of(row.members[i]) != placement.node_of(row.members[i - 1])) ++row.nodes;
                rows_.push_back(std::move(row));
            }
        }
    }
    endResetModel();
    emit selectionChanged();
}

}  // namespace meshscope::ui
