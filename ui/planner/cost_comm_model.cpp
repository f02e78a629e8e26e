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

int CostCommModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : count();
}

QVariant CostCommModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const cost::DimCost& d = rows_[static_cast<std::size_t>(index.row())];
    const bool inter = d.link == cost::LinkKind::inter_node;
    const double share = slowest_ > 0 ? d.seconds / slowest_ : 0.0;
    switch (role) {
        case MeshRole: return QString::fromStdString(d.mesh);
        case Qt::DisplayRole:
        case DimRole: return QString::fromStdString(d.dim);
        case SizeRole: return QVariant::fromValue<qint64>(d.size);
        case InterNodeRole: return inter;
        case NodesRole: return QVariant::fromValue<qint64>(d.nodes);
        case SecondsRole: return d.seconds;
        case IntraNodeSecondsRole: return inter ? 0.0 : d.seconds;
        case InterNodeSecondsRole: return inter ? d.seconds : 0.0;
        case IntraFractionRole: return inter ? 0.0 : share;
        case InterFractionRole: return inter ? share : 0.0;
        case TimeTextRole: return ms_text(d.seconds);
        case LinkTextRole:
            return inter ? QStringLiteral("across %1 nodes").arg(d.nodes) : QStringLiteral("inside a node");
        case CollectivesTextRole: {
            QStringList parts;
            for (const auto& c : d.collectives)
                if (const std::string_view name = to_string(c.collective); c.calls > 0)
                    parts << QStringLiteral("%1 %2 × %3 MiB")
                                 .arg(QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size())))
                                 .arg(c.calls)
                                 .arg(c.bytes / static_cast<double>(c.calls) / (1024.0 * 1024.0), 0, 'f', 1);
            return parts.join(QStringLiteral(", "));
        }
        case ExposedSecondsRole: return d.exposed_seconds;
        case ExposedTextRole: return QStringLiteral("%1 exposed").arg(ms_text(d.exposed_seconds));
        default: return {};
    }
}

QHash<int, QByteArray> CostCommModel::roleNames() const {
    return {{MeshRole, "mesh"},
            {DimRole, "dim"},
            {SizeRole, "size"},
            {InterNodeRole, "interNode"},
            {NodesRole, "nodes"},
            {SecondsRole, "seconds"},
            {IntraNodeSecondsRole, "intraNodeSeconds"},
            {InterNodeSecondsRole, "interNodeSeconds"},
            {IntraFractionRole, "intraFraction"},
            {InterFractionRole, "interFraction"},
            {TimeTextRole, "timeText"},
            {LinkTextRole, "linkText"},
            {CollectivesTextRole, "collectivesText"},
            {ExposedSecondsRole, "exposedSeconds"},
            {ExposedTextRole, "exposedText"}};
}

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

void CostCommModel::reset(std::vector<cost::DimCost> rows, bool shown, double intra, double inter,
                          cost::StepCost step) {
    const int before = count();
    beginResetModel();
    rows_ = std::move(rows);
    shown_ = shown;
    intra_seconds_ = intra;
    inter_seconds_ = inter;
    step_ = step;
    slowest_ = 0;
    for (const auto& d : rows_) slowest_ = std::max(slowest_, d.seconds);
    endResetModel();
    if (before != count()) emit countChanged();
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
