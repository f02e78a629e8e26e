#include "dims_model.h"

#include "dim_style.h"

namespace meshscope::ui {

namespace {
QString span_text(const DimSpan& s) {
    if (s.cross_node_groups == 0) return QStringLiteral("each within one node");
    return (s.cross_node_groups == 1 ? QStringLiteral("%1 of %2 leaves a node (up to %3 nodes)")
                                     : QStringLiteral("%1 of %2 leave a node (up to %3 nodes)"))
        .arg(s.cross_node_groups)
        .arg(s.groups)
        .arg(s.max_nodes);
}

QColor swatch_fill(const DimStyle& style) {
    QColor fill = style.color;
    fill.setAlpha(style.shape == HighlightShape::band ? 90 : 0);
    return fill;
}

using R = DimsRow;
constexpr RowRole<R> roles[] = {
    {DimsModel::MeshRole, "mesh", [](const R& r) -> QVariant { return QString::fromStdString(r.span.mesh); }},
    {DimsModel::DimRole, "dim", [](const R& r) -> QVariant { return QString::fromStdString(r.span.dim); }},
    {DimsModel::SizeRole, "size", [](const R& r) { return QVariant::fromValue<qint64>(r.span.group_size); }},
    {DimsModel::GroupsRole, "groups", [](const R& r) { return QVariant::fromValue<qint64>(r.span.groups); }},
    {DimsModel::CrossNodeGroupsRole, "crossNodeGroups",
     [](const R& r) { return QVariant::fromValue<qint64>(r.span.cross_node_groups); }},
    {DimsModel::MaxNodesRole, "maxNodes", [](const R& r) { return QVariant::fromValue<qint64>(r.span.max_nodes); }},
    {DimsModel::SpanTextRole, "spanText", [](const R& r) -> QVariant { return span_text(r.span); }},
    {DimsModel::ColorRole, "dimColor", [](const R& r) -> QVariant { return dim_style(r.span.dim).color; }},
    {DimsModel::StyleTextRole, "styleText", [](const R& r) -> QVariant { return dim_style(r.span.dim).description; }},
    {DimsModel::SwatchFillRole, "swatchFill",
     [](const R& r) -> QVariant { return swatch_fill(dim_style(r.span.dim)); }},
    {DimsModel::SwatchBorderWidthRole, "swatchBorderWidth",
     [](const R& r) -> QVariant { return dim_style(r.span.dim).shape == HighlightShape::ring ? 2 : 3; }},
    {DimsModel::ShownRole, "shown", [](const R& r) -> QVariant { return r.shown; }},
};
static_assert(roles_in_order(roles));
}  // namespace

DimsModel::DimsModel(QObject* parent) : RowListModel(roles, DimRole, parent) {}

void DimsModel::set_plan(const std::shared_ptr<const Plan>& plan, const QString& mesh) {
    std::vector<DimsRow> rows;
    if (plan)
        for (const PlanMesh& pm : plan->meshes())
            if (mesh.isEmpty() || QString::fromStdString(pm.name) == mesh)
                for (const DimSpan& span : pm.spans)
                    rows.push_back({span, QString::fromStdString(span.dim) == shown_dim_});
    setRows(std::move(rows));
}

void DimsModel::set_shown_dim(const QString& dim) {
    if (dim == shown_dim_) return;
    shown_dim_ = dim;
    for (DimsRow& row : mutableRows()) row.shown = QString::fromStdString(row.span.dim) == shown_dim_;
    if (count() > 0) emit dataChanged(index(0), index(count() - 1), {ShownRole});
}

}  // namespace meshscope::ui
