#include "peer_groups_model.h"

namespace meshscope::ui {

namespace {
QString ranks_text(const QList<int>& ranks) {
    QStringList parts;
    for (int rank : ranks) parts << QString::number(rank);
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}
}  // namespace

QString framework_title(Framework framework) {
    switch (framework) {
        case Framework::fsdpturbo: return QStringLiteral("FSDPTurbo");
        case Framework::torchtitan: return QStringLiteral("TorchTitan");
        case Framework::megatron: return QStringLiteral("Megatron-Core");
    }
    return {};
}

PeerGroupsModel::PeerGroupsModel(Framework framework, QObject* parent)
    : QAbstractListModel(parent), framework_(framework) {}

int PeerGroupsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : count();
}

QVariant PeerGroupsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const Group& group = groups_[static_cast<std::size_t>(index.row())];
    switch (role) {
        case Qt::DisplayRole:
        case RanksTextRole: return ranks_text(group.ranks);
        case RanksRole: return QVariant::fromValue(group.ranks);
        case CrossNodeRole: return group.cross_node;
        case SelectedRole: return selected_rank_ >= 0 && group.ranks.contains(selected_rank_);
        default: return {};
    }
}

QHash<int, QByteArray> PeerGroupsModel::roleNames() const {
    return {
        {RanksRole, "ranks"}, {RanksTextRole, "ranksText"}, {CrossNodeRole, "crossNode"}, {SelectedRole, "selected"}};
}

QString PeerGroupsModel::framework() const {
    const std::string_view name = to_string(framework_);
    return QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
}

QString PeerGroupsModel::title() const {
    return framework_title(framework_);
}

int PeerGroupsModel::crossNodeCount() const {
    int n = 0;
    for (const Group& group : groups_) n += group.cross_node ? 1 : 0;
    return n;
}

int PeerGroupsModel::groupOf(int rank) const {
    for (std::size_t row = 0; row < groups_.size(); ++row)
        if (groups_[row].ranks.contains(rank)) return static_cast<int>(row);
    return -1;
}

QString PeerGroupsModel::selectedGroupText() const {
    const int row = groupOf(selected_rank_);
    return row < 0 || selected_rank_ < 0 ? QString() : ranks_text(groups_[static_cast<std::size_t>(row)].ranks);
}

void PeerGroupsModel::set_shape(const PeerShape& shape) {
    std::vector<Group> groups;
    QString error;
    const Expected<PeerLayout> layout = peer_layout(framework_, shape);
    if (!layout) {
        error = QString::fromStdString(layout.error().message());
    } else if (const PeerDim* ep = layout->dim("ep")) {
        for (const auto& members : ep->groups) {
            Group group;
            for (std::int64_t rank : members) group.ranks << static_cast<int>(rank);
            const std::int64_t gpus = std::max<std::int64_t>(1, shape.gpus_per_node);
            for (std::int64_t rank : members) group.cross_node |= rank / gpus != members.front() / gpus;
            groups.push_back(std::move(group));
        }
    }
    beginResetModel();
    groups_ = std::move(groups);
    error_ = error;
    endResetModel();
    emit groupsChanged();
}

void PeerGroupsModel::set_selected_rank(int rank) {
    if (rank == selected_rank_) return;
    const int before = groupOf(selected_rank_);
    selected_rank_ = rank;
    const int after = groupOf(rank);
    for (int row : {before, after})
        if (row >= 0) emit dataChanged(index(row), index(row), {SelectedRole});
    emit groupsChanged();
}

}  // namespace meshscope::ui
