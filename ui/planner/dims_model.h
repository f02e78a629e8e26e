// DimsModel: one row per dim of a plan's meshes with its group counts, how its groups fall on nodes and the
// style the grid draws it in. The legend is one (the shown mesh's dims); the summary another (every dim).
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QColor>
#include <QString>

#include <memory>
#include <vector>

#include "meshscope/mesh/plan.h"
#include "row_list_model.h"

namespace meshscope::ui {

struct DimsRow {
    DimSpan span;
    bool shown = false;  // all of this dim's groups are drawn
};

class DimsModel : public MESHSCOPE_ROW_LIST_MODEL(DimsRow) {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("DimsModel belongs to a PlanController")

public:
    enum Role {
        MeshRole = Qt::UserRole + 1,
        DimRole,
        SizeRole,
        GroupsRole,
        CrossNodeGroupsRole,
        MaxNodesRole,
        SpanTextRole,  // "each within one node" / "2 of 4 leave a node (up to 2 nodes)"
        ColorRole,
        StyleTextRole,  // "frame", "band", "ring"
        SwatchFillRole,
        SwatchBorderWidthRole,
        ShownRole,  // all of this dim's groups are drawn
    };
    Q_ENUM(Role)

    explicit DimsModel(QObject* parent = nullptr);

    // mesh: "expert", "data" or empty for every mesh of the plan.
    void set_plan(const std::shared_ptr<const Plan>& plan, const QString& mesh);
    void set_shown_dim(const QString& dim);

private:
    QString shown_dim_;
};

}  // namespace meshscope::ui
