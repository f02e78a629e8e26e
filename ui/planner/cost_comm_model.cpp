#include "cost_comm_model.h"

#include <QStringList>

#include <algorithm>
#include <iterator>

namespace meshscope::ui {

QString ms_text(double seconds) {
    // Seconds from one on: a 65,536-rank layout's "40615.28 ms" would not fit its column.
    if (seconds >= 1.0) return QStringLiteral("%1 s").arg(seconds, 0, 'f', 2);
    return QStringLiteral("%1 ms").arg(seconds * 1e3, 0, 'f', 2);
}

namespace {
bool inter(const CostCommRow& r) {
    return r.dim.link == cost::LinkKind::inter_node;
}

QString collectives_text(const cost::DimCost& d) {
    QStringList parts;
    for (const auto& c : d.collectives)
        if (const std::string_view name = to_string(c.collective); c.calls > 0)
            parts << QStringLiteral("%1 %2 × %3 MiB")
                         .arg(QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size())))
                         .arg(c.calls)
                         .arg(c.bytes / static_cast<double>(c.calls) / (1024.0 * 1024.0), 0, 'f', 1);
    return parts.join(QStringLiteral(", "));
}

using R = CostCommRow;
constexpr RowRole<R> roles[] = {
    {CostCommModel::MeshRole, "mesh", [](const R& r) -> QVariant { return QString::fromStdString(r.dim.mesh); }},
    {CostCommModel::DimRole, "dim", [](const R& r) -> QVariant { return QString::fromStdString(r.dim.dim); }},
    {CostCommModel::SizeRole, "size", [](const R& r) { return QVariant::fromValue<qint64>(r.dim.size); }},
    {CostCommModel::InterNodeRole, "interNode", [](const R& r) -> QVariant { return inter(r); }},
    {CostCommModel::NodesRole, "nodes", [](const R& r) { return QVariant::fromValue<qint64>(r.dim.nodes); }},
    {CostCommModel::SecondsRole, "seconds", [](const R& r) -> QVariant { return r.dim.seconds; }},
    {CostCommModel::IntraNodeSecondsRole, "intraNodeSeconds",
     [](const R& r) -> QVariant { return inter(r) ? 0.0 : r.dim.seconds; }},
    {CostCommModel::InterNodeSecondsRole, "interNodeSeconds",
     [](const R& r) -> QVariant { return inter(r) ? r.dim.seconds : 0.0; }},
    {CostCommModel::IntraFractionRole, "intraFraction",
     [](const R& r) -> QVariant { return inter(r) ? 0.0 : r.share; }},
    {CostCommModel::InterFractionRole, "interFraction",
     [](const R& r) -> QVariant { return inter(r) ? r.share : 0.0; }},
    {CostCommModel::TimeTextRole, "timeText", [](const R& r) -> QVariant { return ms_text(r.dim.seconds); }},
    {CostCommModel::LinkTextRole, "linkText",
     [](const R& r) -> QVariant {
         return inter(r) ? QStringLiteral("across %1 nodes").arg(r.dim.nodes) : QStringLiteral("inside a node");
     }},
    {CostCommModel::CollectivesTextRole, "collectivesText",
     [](const R& r) -> QVariant { return collectives_text(r.dim); }},
    {CostCommModel::ExposedSecondsRole, "exposedSeconds", [](const R& r) -> QVariant { return r.dim.exposed_seconds; }},
    {CostCommModel::ExposedTextRole, "exposedText",
     [](const R& r) -> QVariant { return QStringLiteral("%1 exposed").arg(ms_text(r.dim.exposed_seconds)); }},
};
static_assert(roles_in_order(roles));
}  // namespace

CostCommModel::CostCommModel(QObject* parent) : RowListModel(roles, DimRole, parent) {}

QString CostCommModel::totalText() const {
    if (!shown_) return {};
    return QStringLiteral("%1 per step before overlap: inside nodes %2, between nodes %3")
        .arg(ms_text(intra_seconds_ + inter_seconds_), ms_text(intra_seconds_), ms_text(inter_seconds_));
}

QString CostCommModel::stepText() const {
    if (!shown_) return {};
    return QStringLiteral(
               "step %1 = compute %2 + exposed communication %3 · %4 tokens/s per GPU · MFU %5% · "
               "grad-accum %6")
        .arg(ms_text(step_.seconds), ms_text(step_.compute.seconds), ms_text(step_.exposed_seconds))
        .arg(step_.tokens_per_second_per_gpu, 0, 'f', 0)
        .arg(step_.mfu * 100.0, 0, 'f', 1)
        .arg(step_.grad_accum);
}

void CostCommModel::reset(std::vector<cost::DimCost> dims, bool shown, double intra, double inter,
                          cost::StepCost step) {
    double slowest = 0;
    for (const auto& d : dims) slowest = std::max(slowest, d.seconds);
    std::vector<CostCommRow> rows;
    rows.reserve(dims.size());
    for (auto& d : dims) {
        const double share = slowest > 0 ? d.seconds / slowest : 0.0;
        rows.push_back({std::move(d), share});
    }
    setRows(std::move(rows), [&] {
        shown_ = shown;
        intra_seconds_ = intra;
        inter_seconds_ = inter;
        step_ = step;
    });
    emit costChanged();
}

void CostCommModel::set(const cost::LayoutCost& cost) {
    std::vector<cost::DimCost> rows;
    // A dim of size 1 or one that carries no collective moves nothing (as `meshscope plan` prints it).
    std::copy_if(cost.dims.begin(), cost.dims.end(), std::back_inserter(rows),
                 [](const cost::DimCost& d) { return d.size > 1 && !d.collectives.empty(); });
    reset(std::move(rows), true, cost.intra_node_seconds, cost.inter_node_seconds, cost.step);
}

void CostCommModel::clear() {
    reset({}, false, 0, 0, {});
}

}  // namespace meshscope::ui
