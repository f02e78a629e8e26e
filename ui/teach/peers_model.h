// PeersModel: the same job laid out by FSDPTurbo, TorchTitan and Megatron-Core side by side (core's
// peer_layout): the shape as inputs (world, cp, ep, GPUs per node), one PeerGroupsModel per framework as rows
// (in core's all_frameworks order), and the rank the learner picked, whose ep group each framework shows.
#pragma once

#include <QtQml/qqmlregistration.h>

#include <array>
#include <memory>

#include "peer_groups_model.h"
#include "row_list_model.h"

namespace meshscope::ui {

// One row per framework: its groups (owned by the PeersModel).
class PeersModel : public MESHSCOPE_ROW_LIST_MODEL(PeerGroupsModel*) {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("PeersModel belongs to a TourController")
    Q_PROPERTY(int world READ world WRITE setWorld NOTIFY shapeChanged)
    Q_PROPERTY(int cp READ cp WRITE setCp NOTIFY shapeChanged)
    Q_PROPERTY(int ep READ ep WRITE setEp NOTIFY shapeChanged)
    Q_PROPERTY(int gpusPerNode READ gpusPerNode WRITE setGpusPerNode NOTIFY shapeChanged)
    Q_PROPERTY(int selectedRank READ selectedRank WRITE setSelectedRank NOTIFY selectedRankChanged)  // -1: none

public:
    enum Role { FrameworkRole = Qt::UserRole + 1, TitleRole, GroupsRole };
    Q_ENUM(Role)

    explicit PeersModel(QObject* parent = nullptr);

    [[nodiscard]] int world() const { return static_cast<int>(shape_.world); }
    [[nodiscard]] int cp() const { return static_cast<int>(shape_.cp); }
    [[nodiscard]] int ep() const { return static_cast<int>(shape_.ep); }
    [[nodiscard]] int gpusPerNode() const { return static_cast<int>(shape_.gpus_per_node); }
    [[nodiscard]] int selectedRank() const { return selected_rank_; }
    void setWorld(int value);
    void setCp(int value);
    void setEp(int value);
    void setGpusPerNode(int value);
    void setSelectedRank(int rank);  // outside the world: none
    // All four at once (a tour step's view), so the layouts are computed once.
    void set_shape(const PeerShape& shape);

    [[nodiscard]] Q_INVOKABLE meshscope::ui::PeerGroupsModel* layout(int row) const;

signals:
    void shapeChanged();
    void selectedRankChanged();

private:
    void relayout();

    PeerShape shape_{16, 2, 2, 8};  // the design record's W=16, dp=8, cp=2, ep=2
    int selected_rank_ = -1;
    std::array<std::unique_ptr<PeerGroupsModel>, all_frameworks.size()> layouts_;
};

}  // namespace meshscope::ui
