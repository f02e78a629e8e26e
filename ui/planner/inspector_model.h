// InspectorModel: the selected rank seen from every dim of every mesh (model, data, expert): its coordinate, the
// members of its group and whether that group leaves the rank's node. The rank's own facts are properties.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QAbstractListModel>
#include <QColor>
#include <QString>

#include <cstdint>
#include <memory>
#include <vector>

#include "meshscope/mesh/plan.h"

namespace meshscope::ui {

class InspectorModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("InspectorModel belongs to a PlanController")
    Q_PROPERTY(bool hasSelection READ has_selection NOTIFY selectionChanged)
    Q_PROPERTY(int rank READ rank NOTIFY selectionChanged)
    Q_PROPERTY(int node READ node NOTIFY selectionChanged)
    Q_PROPERTY(int localRank READ local_rank NOTIFY selectionChanged)
    Q_PROPERTY(QString modelCoordinate READ model_coordinate NOTIFY selectionChanged)
    Q_PROPERTY(QString dataCoordinate READ data_coordinate NOTIFY selectionChanged)
    Q_PROPERTY(QString expertCoordinate READ expert_coordinate NOTIFY selectionChanged)
    Q_PROPERTY(int count READ count NOTIFY selectionChanged)

public:
    enum Role {
        MeshRole = Qt::UserRole + 1,
        DimRole,
        CoordinateRole,
        GroupIndexRole,  // position in this dim's creation order
        GroupSizeRole,
        MembersRole,  // "0, 8" or an abbreviation of long groups
        LeavesNodeRole,
        NodeCountRole,
        ColorRole,
        FirstOfMeshRole,  // the mesh's first row, which carries its heading
    };
    Q_ENUM(Role)

    using QAbstractListModel::QAbstractListModel;

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
    [[nodiscard]] QHash<int, QByteArray> roleNames() const override;

    [[nodiscard]] bool has_selection() const { return rank_ >= 0; }
    [[nodiscard]] int rank() const { return static_cast<int>(rank_); }
    [[nodiscard]] int node() const;
    [[nodiscard]] int local_rank() const;
    [[nodiscard]] QString model_coordinate() const { return coordinate_text(model_mesh_name); }
    [[nodiscard]] QString data_coordinate() const { return coordinate_text("data"); }
    [[nodiscard]] QString expert_coordinate() const { return coordinate_text("expert"); }
    [[nodiscard]] int count() const { return static_cast<int>(rows_.size()); }

    // rank -1 (or outside the plan) clears the inspector.
    void set(const std::shared_ptr<const Plan>& plan, std::int64_t rank);

    // Long groups show their first members, an ellipsis and the last ones, with the count.
    [[nodiscard]] static QString members_text(const std::vector<std::int64_t>& ranks);

signals:
    void selectionChanged();

private:
    struct Row {
        QString mesh;
        QString dim;
        std::int64_t coordinate = 0;
        std::int64_t group_index = 0;
        std::vector<std::int64_t> members;
        std::int64_t nodes = 1;
    };
    [[nodiscard]] QString coordinate_text(std::string_view mesh) const;

    std::shared_ptr<const Plan> plan_;
    std::int64_t rank_ = -1;
    std::vector<Row> rows_;
};

}  // namespace meshscope::ui
