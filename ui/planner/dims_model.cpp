#include "dims_model.h"

#include "dim_style.h"

namespace meshscope::ui {

int DimsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

QVariant DimsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const DimSpan& s = rows_[static_cast<std::size_t>(index.row())];
    const DimStyle style = dim_style(s.dim);
    switch (role) {
        case MeshRole: return QString::fromStdString(s.mesh);
        case Qt::DisplayRole:
        case DimRole: return QString::fromStdString(s.dim);
        case SizeRole: return QVariant::fromValue<qint64>(s.group_size);
        case GroupsRole: return QVariant::fromValue<qint64>(s.groups);
        case CrossNodeGroupsRole: return QVariant::fromValue<qint64>(s.cross_node_groups);
        case MaxNodesRole: return QVariant::fromValue<qint64>(s.max_nodes);
        case SpanTextRole:
            if (s.cross_node_groups == 0) return QStringLiteral("each within one node");
            return (s.cross_node_groups == 1 ? QStringLiteral("%1 of %2 leaves a node (up to %3 nodes)")
                                             : QStringLiteral("%1 of %2 leave a node (up to %3 nodes)"))
                .arg(s.cross_node_groups)
                .arg(s.groups)
                .arg(s.max_nodes);
        case ColorRole: return style.color;
        case StyleTextRole: return style.description;
        case SwatchFillRole: {
            QColor fill = style.color;
            fill.setAlpha(style.shape == HighlightShape::band ? 90 : 0);
            return fill;
        }
        case SwatchBorderWidthRole: return style.shape == HighlightShape::ring ? 2 : 3;
        case ShownRole: return QString::fromStdString(s.dim) == shown_dim_;
        default: return {};
    }
}

QHash<int, QByteArray> DimsModel::roleNames() const {
    return {{MeshRole, "mesh"},
            {DimRole, "dim"},
            {SizeRole, "size"},
            {GroupsRole, "groups"},
            {CrossNodeGroupsRole, "crossNodeGroups"},
            {MaxNodesRole, "maxNodes"},
            {SpanTextRole, "spanText"},
            {ColorRole, "dimColor"},
            {StyleTextRole, "styleText"},
            {SwatchFillRole, "swatchFill"},
            {SwatchBorderWidthRole, "swatchBorderWidth"},
            {ShownRole, "shown"}};
}

void DimsModel::set_plan(const std::shared_ptr<const Plan>& plan, const QString& mesh) {
    std::vector<DimSpan> rows;
    if (plan)
        for (const PlanMesh& pm : plan->meshes())
            if (mesh.isEmpty() || QString::fromStdString(pm.name) == mesh)
                rows.insert(rows.end(), pm.spans.begin(), pm.spans.end());
    const int before = count();
    beginResetModel();
    rows_ = std::move(rows);
    endResetModel();
    if (before != count()) emit countChanged();
}

void DimsModel::set_shown_dim(const QString& dim) {
    if (dim == shown_dim_) return;
    shown_dim_ = dim;
    if (!rows_.empty()) emit dataChanged(index(0), index(count() - 1), {ShownRole});
}

}  // namespace meshscope::ui
