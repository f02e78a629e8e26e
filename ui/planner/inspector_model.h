// InspectorModel: the selected rank seen from every dim of every mesh (model, data, expert): its coordinate, the
// members of its group and whether that group leaves the rank's node. The rank's own facts are properties.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QColor>
#include <QString>

#include <cstdint>
#include <memory>
#include <vector>

#include "meshscope/mesh/plan.h"
#include "row_list_model.h"

namespace meshscope::ui {

struct InspectorRow {
    QString mesh;
    QString dim;
    std::int64_t coordinate = 0;
    std::int64_t group_index = 0;
    std::vector<std::int64_t> members;
    std::int64_t nodes = 1;
    bool first_of_mesh = false;  // the mesh's first row, which carries its heading
};

class InspectorModel : public MESHSCOPE_ROW_LIST_MODEL(InspectorRow) {
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

    explicit InspectorModel(QObject* parent = nullptr);

    [[nodiscard]] bool has_selection() const { return rank_ >= 0; }
    [[nodiscard]] int rank() const { return static_cast<int>(rank_); }
    [[nodiscard]] int node() const;
    [[nodiscard]] int local_rank() const;
    [[nodiscard]] QString model_coordinate() const { return coordinate_text(model_mesh_name); }
    [[nodiscard]] QString data_coordinate() const { return coordinate_text("data"); }
    [[nodiscard]] QString expert_coordinate() const { return coordinate_text("expert"); }

    // rank -1 (or outside the plan) clears the inspector.
    void set(const std::shared_ptr<const Plan>& plan, std::int64_t rank);

    // Long groups show their first members, an ellipsis and the last ones, with the count.
    [[nodiscard]] static QString members_text(const std::vector<std::int64_t>& ranks);

signals:
    void selectionChanged();

private:
    [[nodiscard]] QString coordinate_text(std::string_view mesh) const;

    std::shared_ptr<const Plan> plan_;
    std::int64_t rank_ = -1;
};

}  // namespace meshscope::ui
