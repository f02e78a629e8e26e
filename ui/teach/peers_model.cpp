#include "peers_model.h"

namespace meshscope::ui {

namespace {
using R = PeerGroupsModel*;
constexpr RowRole<R> roles[] = {
    {PeersModel::FrameworkRole, "framework", [](const R& groups) -> QVariant { return groups->framework(); }},
    {PeersModel::TitleRole, "title", [](const R& groups) -> QVariant { return groups->title(); }},
    {PeersModel::GroupsRole, "groups", [](const R& groups) { return QVariant::fromValue(groups); }},
};
static_assert(roles_in_order(roles));
}  // namespace

PeersModel::PeersModel(QObject* parent) : RowListModel(roles, TitleRole, parent) {
    std::vector<PeerGroupsModel*> rows;
    for (std::size_t i = 0; i < all_frameworks.size(); ++i) {
        layouts_[i] = std::make_unique<PeerGroupsModel>(all_frameworks[i]);
        rows.push_back(layouts_[i].get());
    }
    setRows(std::move(rows));
    relayout();
}

PeerGroupsModel* PeersModel::layout(int row) const {
    return row >= 0 && row < rowCount() ? layouts_[static_cast<std::size_t>(row)].get() : nullptr;
}

void PeersModel::relayout() {
    for (auto& layout : layouts_) layout->set_shape(shape_);
    if (selected_rank_ >= shape_.world) selected_rank_ = -1;
    for (auto& layout : layouts_) layout->set_selected_rank(selected_rank_);
}

void PeersModel::set_shape(const PeerShape& shape) {
    if (shape.world == shape_.world && shape.cp == shape_.cp && shape.ep == shape_.ep &&
        shape.gpus_per_node == shape_.gpus_per_node)
        return;
    const int selected = selected_rank_;
    shape_ = shape;
    relayout();
    emit shapeChanged();
    if (selected != selected_rank_) emit selectedRankChanged();
}

void PeersModel::setWorld(int value) {
    PeerShape shape = shape_;
    shape.world = value;
    set_shape(shape);
}

void PeersModel::setCp(int value) {
    PeerShape shape = shape_;
    shape.cp = value;
    set_shape(shape);
}

void PeersModel::setEp(int value) {
    PeerShape shape = shape_;
    shape.ep = value;
    set_shape(shape);
}

void PeersModel::setGpusPerNode(int value) {
    PeerShape shape = shape_;
    shape.gpus_per_node = value;
    set_shape(shape);
}

void PeersModel::setSelectedRank(int rank) {
    if (rank < 0 || rank >= shape_.world) rank = -1;
    if (rank == selected_rank_) return;
    selected_rank_ = rank;
    for (auto& layout : layouts_) layout->set_selected_rank(rank);
    emit selectedRankChanged();
}

}  // namespace meshscope::ui
